import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's DynamoDB Local instances (test/helpers/global-setup.ts); a file uses its worker's: dynamoEndpoint(). */
    dynamoEndpoints: string[];
    /** The JVM pid of each instance, same order (test/helpers/cpu-meter.ts reads its CPU). */
    dynamoPids: number[];
  }
}
