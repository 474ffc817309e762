/**
 * Bundled in place of `@aws-sdk/lib-dynamodb` in the callback and buffer consumer functions (esbuild alias,
 * infra/bundling.ts FUNCTION_ALIASES), beside dynamodb-client.ts: the document client and the four
 * commands the callback path's store sends (dynamodb-store-document-client.ts adds the other functions').
 * The package's entry re-exports every document command, and each imports its DynamoDB command by name,
 * which the slim DynamoDB client does not have; the bundle keeps only what it uses either way, so this
 * shim changes no byte of the document client, only what esbuild is asked to link. Should the callback path send another document command, export it here and its DynamoDB
 * command in dynamodb-client.ts (the bundle fails to build until then).
 */
// @ts-expect-error -- the packages' ESM files have no declarations beside them (they live in dist-types)
export { DynamoDBDocumentClient } from '../../node_modules/@aws-sdk/lib-dynamodb/dist-es/DynamoDBDocumentClient.js';
// @ts-expect-error -- as above
export { GetCommand } from '../../node_modules/@aws-sdk/lib-dynamodb/dist-es/commands/GetCommand.js';
// @ts-expect-error -- as above
export { PutCommand } from '../../node_modules/@aws-sdk/lib-dynamodb/dist-es/commands/PutCommand.js';
// @ts-expect-error -- as above
export { QueryCommand } from '../../node_modules/@aws-sdk/lib-dynamodb/dist-es/commands/QueryCommand.js';
// @ts-expect-error -- as above
export { UpdateCommand } from '../../node_modules/@aws-sdk/lib-dynamodb/dist-es/commands/UpdateCommand.js';
