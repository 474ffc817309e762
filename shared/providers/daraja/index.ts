import {
  InvalidReferenceError,
  MalformedJsonError,
  PayloadTooLargeError,
  type RelayError,
  SchemaValidationError,
  UnstorableInputError,
  UnsupportedMediaTypeError,
} from '../../domain/errors';
import type { ProviderAck, ProviderModule, ProviderRoute } from '../types';
import {
  parseB2bResult,
  parseB2bTimeout,
  parseB2cResult,
  parseB2cTimeout,
  parseC2bConfirmation,
  parseC2bValidation,
  parseStatusResult,
  parseStatusTimeout,
  parseStk,
} from './parse';
import { parseBalanceResult, parseBalanceTimeout, parseReversalResult, parseReversalTimeout } from './facts';
import { C2B_VALIDATION_DECISIONS } from './c2b-decision';
import { C2B_VALIDATION_USE_CASE } from './c2b-question';
import { verifyDarajaSource } from './source-ip';
import {
  DARAJA_KINDS,
  DARAJA_ROUTES,
  type DarajaAccountSettings,
  type DarajaRouteName,
  darajaAccountSchema,
} from './schema';
import { darajaTimings } from './timings';
import { darajaStatements } from './statements';
import { darajaInfra } from './infra';
import { darajaRegistration } from './registration';
import { DARAJA_COUNTRY } from './normalize';

export { darajaRouteUrl, darajaRouteUrls } from './route-url';

const PARSERS: Record<DarajaRouteName, ProviderRoute<DarajaAccountSettings>['parse']> = {
  stk: parseStk,
  'c2b-validation': parseC2bValidation,
  'c2b-confirmation': parseC2bConfirmation,
  'b2c-result': parseB2cResult,
  'b2c-timeout': parseB2cTimeout,
  'b2b-result': parseB2bResult,
  'b2b-timeout': parseB2bTimeout,
  'status-result': parseStatusResult,
  'status-timeout': parseStatusTimeout,
  'balance-result': parseBalanceResult,
  'balance-timeout': parseBalanceTimeout,
  'reversal-result': parseReversalResult,
  'reversal-timeout': parseReversalTimeout,
};

/**
 * The routes that answer only the relay's own transaction status query (api-client.ts names them as its
 * ResultURL and QueueTimeOutURL). Reversal results answer the partner's requests: ordinary callbacks.
 */
const RELAY_QUERY_ROUTES: readonly DarajaRouteName[] = ['status-result', 'status-timeout'];

/**
 * The routes of Account Balance answers: the partner's requests and the relay's balance snapshots
 * (api-client.ts `balance`) name the same ResultURL and QueueTimeOutURL. Which request an answer is for is
 * told by its id (the result's OriginatorConversationID, else ConversationID: the fact's id, facts.ts),
 * never by the route.
 */
const BALANCE_ROUTES: readonly DarajaRouteName[] = ['balance-result', 'balance-timeout'];

/** Daraja's acknowledgements (docs/routes.md). */
const DARAJA_ACK = { ResultCode: 0, ResultDesc: 'Accepted' } as const;
const C2B_CONFIRMATION_ACK = { ResultCode: 0, ResultDesc: 'Success' } as const;

function validationAnswer(resultCode: string): ProviderAck {
  return resultCode === '0'
    ? { statusCode: 200, body: { ResultCode: '0', ResultDesc: 'Accepted' } }
    : { statusCode: 200, body: { ResultCode: resultCode, ResultDesc: 'Rejected' } };
}

/** Bad input a validation request can carry; Daraja gets its own rejection for it (see formatError). */
const BAD_INPUT = [
  SchemaValidationError,
  InvalidReferenceError,
  UnstorableInputError,
  MalformedJsonError,
  UnsupportedMediaTypeError,
  PayloadTooLargeError,
];

export const darajaProvider: ProviderModule<DarajaAccountSettings> = {
  id: 'daraja',
  displayName: 'Safaricom Daraja',
  // Members and Key/Value items that carry a number, alone or as "254708374149 - Name" (PartyA/B may be a
  // short code, which is no phone number and stays). A reversal result names the customer in
  // CreditPartyPublicName or DebitPartyPublicName (the original movement runs backwards). ResultDesc is
  // Daraja's own words, which may name the customer ("No response from user 2547…").
  timings: darajaTimings,
  statements: darajaStatements,
  infra: darajaInfra,
  registration: darajaRegistration,
  phoneFields: [
    'PhoneNumber',
    'MSISDN',
    'PartyA',
    'PartyB',
    'ReceiverPartyPublicName',
    'DebitPartyName',
    'CreditPartyName',
    'CreditPartyPublicName',
    'DebitPartyPublicName',
    'ResultDesc',
  ],
  countryOf: () => DARAJA_COUNTRY,
  pathSecretRequired: true,
  accountSchema: darajaAccountSchema,
  routes: (Object.keys(DARAJA_ROUTES) as DarajaRouteName[]).map((name) => ({
    name,
    methods: ['POST'] as const,
    path: DARAJA_ROUTES[name],
    parse: PARSERS[name],
    ...(name === 'c2b-validation' ? { asks: C2B_VALIDATION_USE_CASE } : {}),
    ...(RELAY_QUERY_ROUTES.includes(name) ? { answersRelayQuery: true } : {}),
    ...(BALANCE_ROUTES.includes(name) ? { answersBalanceRequests: true } : {}),
  })),
  verify: verifyDarajaSource,
  ack: ({ route, resultCode }) => {
    if (route === 'c2b-validation') return validationAnswer(resultCode ?? '0');
    if (route === 'c2b-confirmation') return { statusCode: 200, body: C2B_CONFIRMATION_ACK };
    return { statusCode: 200, body: DARAJA_ACK };
  },
  /**
   * A validation request Daraja cannot have meant (malformed, wrong shape) is answered with Daraja's own
   * rejection, `{"ResultCode":"C2B00016","ResultDesc":"Rejected"}` with HTTP 200: it is the only answer
   * whose effect Daraja documents (the payment is cancelled), where a 4xx would leave the outcome to the
   * short code's ResponseType default and, per integrator reports, risks retries. The quarantine entry
   * keeps the mapped status (400). Every other error keeps the relay's JSON error and status.
   */
  formatError(error: RelayError, _statusCode: number, route: string | undefined) {
    if (route !== 'c2b-validation' || !BAD_INPUT.some((type) => error instanceof type)) return undefined;
    return {
      statusCode: 200,
      body: { ResultCode: 'C2B00016', ResultDesc: 'Rejected' },
      headers: { 'content-type': 'application/json', 'x-relay-error': error.code },
    };
  },
  // stk: STK push query; b2c and c2b: transaction status query (its result arrives on status/result).
  statusKinds: DARAJA_KINDS,
  // Result callbacks (STK, B2C, status) have no documented timeout; C2B validation's ~8 s is the only one and keeps its own deadline, so 5 s like its default.
  ackBudget: { storeMs: 3000, ackMs: 5000 },
  secrets: (settings) =>
    [
      settings.c2b.partner?.bearerToken,
      settings.api?.consumerKey,
      settings.api?.consumerSecret,
      settings.api?.passkey,
      settings.api?.initiator,
      settings.api?.securityCredential,
      settings.api?.initiatorPassword,
    ].filter(Boolean),
  callbackSourceCidrs: (settings) => settings.sourceIp.allow,
  decisions: { [C2B_VALIDATION_USE_CASE]: C2B_VALIDATION_DECISIONS },
  senderCheck: 'source-ip',
  configuredUrls: (settings) =>
    settings.c2b.partner ? [{ key: 'c2b.partner.url', url: settings.c2b.partner.url }] : [],
};
