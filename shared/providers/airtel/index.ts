import * as z from 'zod';
import { InvalidReferenceError, SchemaValidationError, UnauthorizedError } from '../../domain/errors';
import { json } from '../../http/types';
import type { ProviderModule, RouteContext } from '../types';
import { verifyAirtelHash } from './hash';
import { normalizeAirtelCallback } from './normalize';
import {
  AIRTEL_KINDS,
  type AirtelAccountSettings,
  airtelAccountSchema,
  airtelCallbackSchema,
  airtelReferenceProblem,
} from './schema';

/** The partner id, for logs only when it is a plausible id (never the hash, never the key). */
function referenceForLog(body: Record<string, unknown>): string | undefined {
  const tx = body.transaction as { id?: unknown } | undefined;
  const id = tx && typeof tx === 'object' ? tx.id : undefined;
  return (typeof id === 'string' || typeof id === 'number') && String(id).length <= 64
    ? String(id)
    : undefined;
}

async function handleCallback(ctx: RouteContext<AirtelAccountSettings>) {
  const body = ctx.body as Record<string, unknown>;
  const settings = ctx.account.settings;
  // Authenticate before looking at the content: an unauthenticated body is not worth a schema error.
  const verification = verifyAirtelHash(
    { rawBody: ctx.request.rawBody, body, headers: ctx.request.headers },
    settings,
  );
  Object.assign(ctx.verification, verification);
  if (verification.hash === 'missing' || verification.hash === 'mismatch') {
    const what =
      verification.hash === 'missing' ? 'carries no hash' : 'hash does not match any enabled recipe';
    if (verification.mode === 'enforce') {
      throw new UnauthorizedError(`Airtel callback ${what}`, {
        details: { tried: verification.tried ?? [] },
      });
    }
    ctx.services.log.warn(`Airtel callback ${what}; accepted because hashMode is log-only`, {
      provider: 'airtel',
      account: ctx.account.id,
      reference: referenceForLog(body),
      hash: verification.hash,
      tried: verification.tried,
    });
  }

  const parsed = airtelCallbackSchema.safeParse(body);
  if (!parsed.success) {
    throw new SchemaValidationError('Airtel callback does not match the expected shape', {
      details: { issues: z.treeifyError(parsed.error) },
    });
  }
  const problem = airtelReferenceProblem(parsed.data.transaction.id);
  if (problem) throw new InvalidReferenceError(problem);

  const report = normalizeAirtelCallback(ctx.account.id, parsed.data);
  const { duplicate, receipt } = await ctx.services.ingest(ctx, report);
  // Airtel reads only the status code; the body helps people debugging with curl.
  return json(200, { received: true, duplicate, receiptId: receipt.receiptId });
}

export const airtelProvider: ProviderModule<AirtelAccountSettings> = {
  id: 'airtel',
  displayName: 'Airtel Money',
  accountSchema: airtelAccountSchema,
  routes: [{ name: 'callback', methods: ['POST'], path: 'callback', handle: handleCallback }],
  registration: {
    kinds: AIRTEL_KINDS,
    validateReference: airtelReferenceProblem,
    // No callbackUrl: Airtel takes the callback URL from the application settings, not per request.
  },
};
