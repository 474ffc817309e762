/**
 * The zod the relay's code validates with: `zod/mini`, the same validation core as `zod` (same checks,
 * issues and English messages) with functions instead of methods (`z.optional(z.string())` for
 * `z.string().optional()`). Classic `zod` attaches its whole method API and JSON Schema generators to
 * every schema, ~70 KB of each Lambda bundle that imports it, used or not (docs/development.md, bundle
 * row). zod/mini leaves messages to the caller, so this module installs zod's English locale, as classic
 * `zod` does on import: import `z` from here, never from 'zod/mini' directly.
 */
import {
  type catch as miniCatch,
  config,
  type iso as miniIso,
  ZodMiniCatch,
  ZodMiniISODateTime,
} from 'zod/mini';
import { en } from 'zod/locales';
import { _catch, _isoDateTime } from 'zod/v4/core';

config(en());

export * from 'zod/mini';

/*
 * Two of zod/mini's functions, made here the way mini makes them (its schema class through zod's core
 * API: the same schema, the same parse). Mini's `catch` reaches a core helper as
 * `core.util.constantCatch`, and `z.iso.datetime` is a function inside a namespace inside the `z`
 * namespace: esbuild cannot resolve either statically, so it kept the whole of zod's util module and of
 * mini's iso module in every bundle that used them (~8 KB; test/unit/util/zod.test.ts compares them with
 * mini's, test/infra/bundle-size.test.ts holds the util module down).
 */
const catchValue = ((innerType: never, value: never) =>
  _catch(ZodMiniCatch, innerType, value)) as unknown as typeof miniCatch;
/** `z.iso` as the relay uses it: ISO datetimes. */
const iso: Pick<typeof miniIso, 'datetime'> = {
  datetime: ((params?: never) => _isoDateTime(ZodMiniISODateTime, params)) as typeof miniIso.datetime,
};
export { catchValue as catch, iso };
