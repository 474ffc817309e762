import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}
