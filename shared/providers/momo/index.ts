import * as z from 'zod';
import { InvalidReferenceError, SchemaValidationError, UnknownKindError } from '../../domain/errors';
import { json } from '../../http/types';
import { isUuid } from '../../util/ids';
import type { ProviderModule, RouteContext } from '../types';
import { normalizeMomoCallback } from './normalize';
import { MOMO_KINDS, type MomoAccountSettings, momoAccountSchema, momoCallbackSchema } from './schema';

async function handleCallback(ctx: RouteContext<MomoAccountSettings>) {
  const kind = ctx.params.kind!.toLowerCase();
  if (!(MOMO_KINDS as readonly string[]).includes(kind)) {
    throw new UnknownKindError(
      `Unknown MoMo callback kind "${ctx.params.kind}"; expected one of ${MOMO_KINDS.join(', ')}`,
    );
  }
  const reference = ctx.params.referenceId!.toLowerCase();
  if (!isUuid(reference)) {
    throw new InvalidReferenceError(
      `MoMo reference "${ctx.params.referenceId}" is not a UUID (it is the X-Reference-Id)`,
    );
  }
  const parsed = momoCallbackSchema.safeParse(ctx.body);
  if (!parsed.success) {
    throw new SchemaValidationError(`MoMo ${kind} callback does not match the expected shape`, {
      details: { issues: z.treeifyError(parsed.error) },
    });
  }
  const report = normalizeMomoCallback(ctx.account.id, kind, reference, parsed.data);
  const { duplicate, receipt } = await ctx.services.ingest(ctx, report);
  // MoMo reads only the status code; the body helps people debugging with curl.
  return json(200, { received: true, duplicate, receiptId: receipt.receiptId });
}

export const momoProvider: ProviderModule<MomoAccountSettings> = {
  id: 'momo',
  displayName: 'MTN MoMo',
  accountSchema: momoAccountSchema,
  routes: [
    { name: 'callback', methods: ['PUT', 'POST'], path: '{kind}/{referenceId}', handle: handleCallback },
  ],
  registration: {
    kinds: MOMO_KINDS,
    normalizeReference: (reference) => reference.toLowerCase(),
    validateReference: (reference) =>
      isUuid(reference)
        ? undefined
        : 'MoMo references are the X-Reference-Id UUID (version 4) of the request',
    callbackUrl: ({ baseUrl, account, kind, reference }) =>
      `${baseUrl.replace(/\/$/, '')}/v1/momo/${account.id}${account.pathSecret ? `/${account.pathSecret}` : ''}/${kind}/${reference.toLowerCase()}`,
  },
};
