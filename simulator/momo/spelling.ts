/**
 * `momo.errorSpelling`: MoMo routes are registered through a wrapper that re-spells the `code` of every
 * error a handler throws, so no handler has to know which spelling is in force.
 */
import { SimHttpError } from '../core/http';
import type { Router } from '../core/router';
import { type MomoErrorSpelling, respellError } from './errors';

/** The part of the router MoMo modules register with. */
export type RouteAdder = Pick<Router, 'add'>;

export function withErrorSpelling(router: Router, spelling: MomoErrorSpelling): RouteAdder {
  if (spelling === 'mtn') return router;
  return {
    add: (owner, method, pattern, handler, options) =>
      router.add(
        owner,
        method,
        pattern,
        async (ctx) => {
          try {
            return await handler(ctx);
          } catch (e) {
            throw e instanceof SimHttpError ? respellError(e, spelling) : e;
          }
        },
        options,
      ),
  };
}
