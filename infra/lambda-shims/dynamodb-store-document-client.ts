/**
 * Bundled in place of `@aws-sdk/lib-dynamodb` beside dynamodb-store-client.ts (every function but the
 * callback and the buffer consumer, infra/bundling.ts BUNDLE_OPTIONS.alias): the callback's document client and
 * commands (dynamodb-document-client.ts) and the two more the whole relay store sends, BatchGet and
 * TransactWrite. As there, this changes no byte of the document client, only what esbuild is asked to link.
 * Should one of these functions send another document command, export it here and its DynamoDB command in
 * dynamodb-store-client.ts (the bundle fails to build until then).
 */
export * from './dynamodb-document-client';
// @ts-expect-error -- the packages' ESM files have no declarations beside them (they live in dist-types)
export { BatchGetCommand } from '../../node_modules/@aws-sdk/lib-dynamodb/dist-es/commands/BatchGetCommand.js';
// @ts-expect-error -- as above
export { TransactWriteCommand } from '../../node_modules/@aws-sdk/lib-dynamodb/dist-es/commands/TransactWriteCommand.js';
