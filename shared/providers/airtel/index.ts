import * as z from '../../util/zod';
import { InvalidReferenceError, SchemaValidationError, UnauthorizedError } from '../../domain/errors';
import type { CallbackInput, ParsedCallback, ProviderModule, VerificationResult } from '../types';
import { verifyAirtelHash } from './hash';
import { normalizeAirtelCallback } from './normalize';
import {
  AIRTEL_KINDS,
  type AirtelAccountSettings,
  type AirtelHashRecipe,
  airtelAccountSchema,
  airtelCallbackSchema,
  airtelReferenceProblem,
} from './schema';
import { airtelTimings } from './timings';
import { airtelStatements } from './statements';
import { airtelInfra } from './infra';
import { airtelRegistration } from './registration';

/** Recipes that sign only part of the body, and that part: the rest is ignored when such a recipe matched. */
const SIGNED_PART: Partial<
  Record<AirtelHashRecipe, (body: Record<string, unknown>) => Record<string, unknown>>
> = {
  'stringify-transaction': (body) => ({ transaction: body.transaction }),
};

/**
 * Authenticate before looking at the content: an unauthenticated body is not worth a schema error.
 * Only what the matching recipe signed is trusted; unsigned members are listed in the receipt's facts.
 */
function verifyCallback(input: CallbackInput<AirtelAccountSettings>): VerificationResult {
  const verification = verifyAirtelHash(
    { rawBody: input.rawBody, body: input.body, headers: input.headers },
    input.account.settings,
  );
  const facts: Record<string, unknown> = { ...verification };
  if (verification.hash === 'missing' || verification.hash === 'mismatch') {
    const what =
      verification.hash === 'missing' ? 'carries no hash' : 'hash does not match any enabled recipe';
    if (verification.mode === 'enforce') {
      return {
        facts,
        authenticated: false,
        refusal: new UnauthorizedError(`Airtel callback ${what}`, {
          details: { tried: verification.tried ?? [] },
        }),
      };
    }
    return {
      facts,
      authenticated: false,
      warning: `Airtel callback ${what}; accepted because hashMode is log-only`,
    };
  }
  if (verification.hash !== 'matched') return { facts, authenticated: false };
  const signedPart = verification.recipe ? SIGNED_PART[verification.recipe] : undefined;
  if (!signedPart) return { facts, authenticated: true };
  const trustedBody = signedPart(input.body);
  const ignored = Object.keys(input.body).filter((name) => name !== 'hash' && !(name in trustedBody));
  if (ignored.length) facts.ignoredUnsigned = ignored;
  return { facts, authenticated: true, trustedBody };
}

function parseCallback(input: CallbackInput<AirtelAccountSettings>): ParsedCallback {
  const parsed = airtelCallbackSchema.safeParse(input.body);
  if (!parsed.success) {
    throw new SchemaValidationError('Airtel callback does not match the expected shape', {
      details: { issues: z.treeifyError(parsed.error) },
    });
  }
  const problem = airtelReferenceProblem(parsed.data.transaction.id);
  if (problem) throw new InvalidReferenceError(problem);
  return { type: 'reports', reports: [{ draft: normalizeAirtelCallback(input.account.id, parsed.data) }] };
}

export const airtelProvider: ProviderModule<AirtelAccountSettings> = {
  id: 'airtel',
  displayName: 'Airtel Money',
  // Airtel's callbacks carry no number field; its payment requests name the subscriber's `msisdn`. The
  // callback's `message` is free text that may name one: its numbers are masked, the ids beside them stay.
  timings: airtelTimings,
  statements: airtelStatements,
  infra: airtelInfra,
  registration: airtelRegistration,
  phoneFields: ['msisdn', 'message'],
  countryOf: (settings) => settings.country ?? settings.api?.country,
  accountSchema: airtelAccountSchema,
  routes: [{ name: 'callback', methods: ['POST'], path: 'callback', parse: parseCallback }],
  verify: verifyCallback,
  // Airtel reads only the status code; the body helps people debugging with curl.
  ack: ({ duplicate, receiptId }) => ({ statusCode: 200, body: { received: true, duplicate, receiptId } }),
  // Every kind: disbursement answers `unsupported` unless `api.paths.disbursement` names its enquiry.
  statusKinds: AIRTEL_KINDS,
  // Airtel documents no callback timeout: assumed as short as MoMo's.
  ackBudget: { storeMs: 1200, ackMs: 1800 },
  secrets: (settings) =>
    [
      settings.callbackKey,
      settings.previousCallbackKey,
      settings.api?.clientId,
      settings.api?.clientSecret,
    ].filter(Boolean),
};
