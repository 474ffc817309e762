/**
 * Bundled in place of `@aws-sdk/client-sqs` in the callback function (esbuild alias,
 * infra/bundling.ts FUNCTION_ALIASES): the client and SendMessage, all the callback sends (the ingress
 * buffer, shared/adapters/sqs/sqs-ingress-buffer.ts). The generated client costs the callback ~24 KB,
 * most of it the 28 error classes and schemas of every SQS operation, none of which a SendMessage
 * reads: slim-aws-client.ts rebuilds the client without them (same retries, timeouts, signing, queue-URL
 * endpoint and MD5 check of the body). SendMessage's schemas below are the package's own
 * (dist-es/schemas/schemas_0.js), copied; test/unit/infra/slim-clients.test.ts sends through both
 * clients and compares the requests on the wire and the answers. The buffer consumer, the management API
 * and the delivery function take sqs-client.ts: this client with the few more commands they send.
 */
// @ts-expect-error -- the packages' ESM files have no declarations beside them (they live in dist-types)
import { AwsJson1_0Protocol } from '../../node_modules/@aws-sdk/core/dist-es/submodules/protocols/index.js';
import {
  getQueueUrlPlugin,
  getSendMessagePlugin,
  resolveQueueUrlConfig,
  // @ts-expect-error -- as above
} from '../../node_modules/@aws-sdk/middleware-sdk-sqs/dist-es/index.js';
import {
  defaultSQSHttpAuthSchemeParametersProvider,
  defaultSQSHttpAuthSchemeProvider,
  resolveHttpAuthSchemeConfig,
  // @ts-expect-error -- as above
} from '../../node_modules/@aws-sdk/client-sqs/dist-es/auth/httpAuthSchemeProvider.js';
import {
  commonParams,
  resolveClientEndpointParameters,
  // @ts-expect-error -- as above
} from '../../node_modules/@aws-sdk/client-sqs/dist-es/endpoint/EndpointParameters.js';
// @ts-expect-error -- as above
import { defaultEndpointResolver } from '../../node_modules/@aws-sdk/client-sqs/dist-es/endpoint/endpointResolver.js';
// @ts-expect-error -- as above
import { SQSServiceException } from '../../node_modules/@aws-sdk/client-sqs/dist-es/models/SQSServiceException.js';
// @ts-expect-error -- as above
import { resolveRuntimeExtensions } from '../../node_modules/@aws-sdk/client-sqs/dist-es/runtimeExtensions.js';
// One field of the package.json: esbuild keeps only what is imported by name from a JSON file.
import { version } from '../../node_modules/@aws-sdk/client-sqs/package.json';
import { slimClientClass, slimCommandBuilder } from './slim-aws-client';

export { SQSServiceException };

export const SQSClient = slimClientClass({
  serviceId: 'SQS',
  apiVersion: '2012-11-05',
  clientVersion: version,
  protocol: AwsJson1_0Protocol,
  protocolSettings: {
    defaultNamespace: 'com.amazonaws.sqs',
    version: '2012-11-05',
    serviceTarget: 'AmazonSQS',
    awsQueryCompatible: true,
  },
  baseException: SQSServiceException,
  defaultSocketTimeoutMs: 900_000,
  md5: true,
  httpAuthSchemeProvider: defaultSQSHttpAuthSchemeProvider,
  httpAuthSchemeParametersProvider: defaultSQSHttpAuthSchemeParametersProvider,
  resolveHttpAuthSchemeConfig,
  endpointResolver: defaultEndpointResolver,
  resolveClientEndpointParameters,
  resolveRuntimeExtensions,
  resolveServiceConfig: resolveQueueUrlConfig,
  servicePlugins: (config) => [getQueueUrlPlugin(config)],
});

// SendMessage's schemas, from the package's dist-es/schemas/schemas_0.js (same shapes, same traits).
export const n0 = 'com.amazonaws.sqs';
export const member = (name: string) => ({ xmlFlattened: 1, xmlName: name });
const StringList = [1, n0, 'StringList', 0, [0, { xmlName: 'StringListValue' }]];
const BinaryList = [1, n0, 'BinaryList', 0, [21, { xmlName: 'BinaryListValue' }]];
const attributeValue = (name: string) => [
  3,
  n0,
  name,
  0,
  ['DataType', 'StringValue', 'BinaryValue', 'StringListValues', 'BinaryListValues'],
  [0, 0, 21, [() => StringList, member('StringListValue')], [() => BinaryList, member('BinaryListValue')]],
  1,
];
const MessageAttributeValue$ = attributeValue('MessageAttributeValue');
const MessageSystemAttributeValue$ = attributeValue('MessageSystemAttributeValue');
const attributeMap = (name: string, value: () => unknown) => [
  2,
  n0,
  name,
  0,
  [0, { xmlName: 'Name' }],
  [value, { xmlName: 'Value' }],
];
export const MessageBodyAttributeMap = attributeMap('MessageBodyAttributeMap', () => MessageAttributeValue$);
const MessageBodySystemAttributeMap = attributeMap(
  'MessageBodySystemAttributeMap',
  () => MessageSystemAttributeValue$,
);
const SendMessageRequest$ = [
  3,
  n0,
  'SendMessageRequest',
  0,
  [
    'QueueUrl',
    'MessageBody',
    'DelaySeconds',
    'MessageAttributes',
    'MessageSystemAttributes',
    'MessageDeduplicationId',
    'MessageGroupId',
  ],
  [
    0,
    0,
    1,
    [() => MessageBodyAttributeMap, member('MessageAttribute')],
    [() => MessageBodySystemAttributeMap, member('MessageSystemAttribute')],
    0,
    0,
  ],
  2,
];
const SendMessageResult$ = [
  3,
  n0,
  'SendMessageResult',
  0,
  [
    'MD5OfMessageBody',
    'MD5OfMessageAttributes',
    'MD5OfMessageSystemAttributes',
    'MessageId',
    'SequenceNumber',
  ],
  [0, 0, 0, 0, 0],
];
const SendMessage$ = [9, n0, 'SendMessage', 0, () => SendMessageRequest$, () => SendMessageResult$];

/** The schemas copied above, by name (test/unit/infra/slim-clients.test.ts compares them with the package's). */
export const COPIED_SCHEMAS: Record<string, unknown> = { SendMessage$ };

export const command = slimCommandBuilder(commonParams, 'AmazonSQS', 'SQSClient');

export class SendMessageCommand extends command(
  {},
  (_command: unknown, _stack: unknown, config: unknown) => [getSendMessagePlugin(config)],
  'SendMessage',
  SendMessage$,
) {}
