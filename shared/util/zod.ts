/**
 * The zod the relay's code validates with: `zod/mini`, the same validation core as `zod` (same checks,
 * issues and English messages) with functions instead of methods (`z.optional(z.string())` for
 * `z.string().optional()`). Classic `zod` attaches its whole method API and JSON Schema generators to
 * every schema, ~70 KB of each Lambda bundle that imports it, used or not (docs/development.md, bundle
 * row). zod/mini leaves messages to the caller, so this module installs zod's English locale, as classic
 * `zod` does on import: import `z` from here, never from 'zod/mini' directly.
 */
import { config } from 'zod/mini';
import { en } from 'zod/locales';

config(en());

export * from 'zod/mini';
