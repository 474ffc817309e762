import * as z from '../../util/zod';
import { InvalidReferenceError, SchemaValidationError, UnknownKindError } from '../../domain/errors';
import { isUuid } from '../../util/ids';
import { idProblem } from '../../util/text';
import type { CallbackInput, ParsedCallback, ProviderModule } from '../types';
import { normalizeMomoCallback } from './normalize';
import { MOMO_KINDS, type MomoAccountSettings, momoAccountSchema, momoCallbackSchema } from './schema';
import { momoTimings } from './timings';
import { momoStatements } from './statements';
import { momoInfra } from './infra';
import { momoRegistration } from './registration';

function kindOf(input: CallbackInput<MomoAccountSettings>): string {
  const kind = input.params.kind!.toLowerCase();
  if (!(MOMO_KINDS as readonly string[]).includes(kind)) {
    throw new UnknownKindError(
      `Unknown MoMo callback kind "${input.params.kind!.slice(0, 40)}"; expected one of ${MOMO_KINDS.join(', ')}`,
    );
  }
  return kind;
}

function parseBody(input: CallbackInput<MomoAccountSettings>, kind: string) {
  const parsed = momoCallbackSchema.safeParse(input.body);
  if (!parsed.success) {
    throw new SchemaValidationError(`MoMo ${kind} callback does not match the expected shape`, {
      details: { issues: z.treeifyError(parsed.error) },
    });
  }
  return parsed.data;
}

/**
 * The reference-less route (`/v1/momo/{account}[/{secret}]/{kind}`) for client libraries that make up
 * X-Reference-Id themselves and use one callback URL (the `mtn-momo` package). The body's externalId is
 * not unique, so the callback is only a hint: it makes the registered transaction with that externalId
 * due for a status GET now (with its real reference), or waits for that registration. Never guessed.
 */
function parseReferenceless(input: CallbackInput<MomoAccountSettings>): ParsedCallback {
  const kind = kindOf(input);
  const body = parseBody(input, kind);
  const externalId =
    typeof body.externalId === 'string' && body.externalId !== '' ? body.externalId : undefined;
  if (!externalId)
    throw new SchemaValidationError(
      `MoMo ${kind} callback on the reference-less route carries no externalId to correlate it with`,
    );
  // Checked here, under its own name: on this route the externalId also stands in as the report's key.
  const problem = idProblem('its externalId', externalId);
  if (problem)
    throw new SchemaValidationError(`MoMo ${kind} callback on the reference-less route: ${problem}`);
  const draft = normalizeMomoCallback(input.account.id, kind, externalId, body);
  return {
    type: 'reports',
    reports: [
      { draft: { ...draft, externalId }, correlate: [{ via: 'externalId', value: externalId }], hint: true },
    ],
  };
}

/** A MoMo callback: the kind and the reference (X-Reference-Id) are in the path the relay handed out. */
function parseCallback(input: CallbackInput<MomoAccountSettings>): ParsedCallback {
  const kind = kindOf(input);
  const reference = input.params.referenceId!.toLowerCase();
  if (!isUuid(reference)) {
    throw new InvalidReferenceError(
      'The MoMo reference in the path is not a UUID (it is the X-Reference-Id)',
    );
  }
  return {
    type: 'reports',
    reports: [
      {
        draft: {
          ...normalizeMomoCallback(input.account.id, kind, reference, parseBody(input, kind)),
          kindFromPath: true,
        },
      },
    ],
  };
}

/** X-Target-Environment values of MoMo's countries (MoMo Open API docs) → ISO country. */
const MOMO_ENVIRONMENT_COUNTRIES: Readonly<Record<string, string>> = {
  mtnuganda: 'UG',
  mtnghana: 'GH',
  mtnivorycoast: 'CI',
  mtnzambia: 'ZM',
  mtncameroon: 'CM',
  mtnbenin: 'BJ',
  mtncongo: 'CG',
  mtnswaziland: 'SZ',
  mtnguineaconakry: 'GN',
  mtnsouthafrica: 'ZA',
  mtnliberia: 'LR',
};

export const momoProvider: ProviderModule<MomoAccountSettings> = {
  id: 'momo',
  displayName: 'MTN MoMo',
  // payer/payee {partyIdType, partyId}: an id of type EMAIL or PARTY_CODE has no number and stays.
  // payerMessage/payeeNote are the partner's free text, echoed back: numbers written there are masked too.
  // payerMsisdn: the sender's number a cash transfer (Remittance) carries and its callback echoes.
  timings: momoTimings,
  statements: momoStatements,
  infra: momoInfra,
  registration: momoRegistration,
  phoneFields: ['partyId', 'msisdn', 'payerMsisdn', 'payerMessage', 'payeeNote'],
  countryOf: (settings) =>
    Object.hasOwn(MOMO_ENVIRONMENT_COUNTRIES, settings.targetEnvironment)
      ? MOMO_ENVIRONMENT_COUNTRIES[settings.targetEnvironment]
      : undefined,
  // MoMo callbacks are unsigned: the path secret is the only authentication they can carry.
  pathSecretRequired: true,
  accountSchema: momoAccountSchema,
  routes: [
    { name: 'callback', methods: ['PUT', 'POST'], path: '{kind}/{referenceId}', parse: parseCallback },
    { name: 'callback-by-external-id', methods: ['PUT', 'POST'], path: '{kind}', parse: parseReferenceless },
  ],
  // MoMo reads only the status code; the body helps people debugging with curl.
  ack: ({ duplicate, receiptId }) => ({ statusCode: 200, body: { received: true, duplicate, receiptId } }),
  // Every kind: cash transfer answers `unsupported` unless `api.paths.cashtransfer` names its status GET.
  statusKinds: MOMO_KINDS,
  // MTN's callback page: a callback times out after 2 s.
  ackBudget: { storeMs: 1200, ackMs: 1800 },
  secrets: (settings) =>
    [
      settings.api?.apiUser,
      settings.api?.apiKey,
      settings.api?.collectionSubscriptionKey,
      settings.api?.disbursementSubscriptionKey,
      settings.api?.remittanceSubscriptionKey,
      settings.api?.collectionSecondarySubscriptionKey,
      settings.api?.disbursementSecondarySubscriptionKey,
      settings.api?.remittanceSecondarySubscriptionKey,
    ].filter(Boolean),
};
