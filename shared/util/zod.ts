/**
 * The zod the relay's code validates with: `zod/mini`, the same validation core as `zod` (same checks,
 * issues and English messages) with functions instead of methods (`z.optional(z.string())` for
 * `z.string().optional()`). Classic `zod` attaches its whole method API and JSON Schema generators to
 * every schema, ~70 KB of each Lambda bundle that imports it, used or not (docs/development.md, bundle
 * row). zod/mini leaves messages to the caller, so this module installs zod's English locale, as classic
 * `zod` does on import: import `z` from here, never from 'zod/mini' directly.
 */
import { type catch as miniCatch, config, ZodMiniCatch } from 'zod/mini';
import { en } from 'zod/locales';
import { _catch } from 'zod/v4/core';

config(en());

export * from 'zod/mini';

/**
 * zod/mini's `catch`, made the way mini's own is (its schema class through zod's core API: the same
 * schema, the same constant catch value). Mini's reaches that core helper as `core.util.constantCatch`, a
 * namespace inside a namespace, which makes esbuild keep the whole of zod's util module in a bundle that
 * uses `z.catch` (~7 KB; test/unit/util/zod.test.ts compares the two).
 */
const catchValue = ((innerType: never, value: never) =>
  _catch(ZodMiniCatch, innerType, value)) as unknown as typeof miniCatch;
export { catchValue as catch };
