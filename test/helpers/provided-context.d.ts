import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's DynamoDB Local instances (test/helpers/global-setup.ts); a file uses its worker's: dynamoEndpoint(). */
    dynamoEndpoints: string[];
  }
}
