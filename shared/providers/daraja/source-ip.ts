import { ForbiddenSourceError } from '../../domain/errors';
import {
  checkSourceIp,
  createIpAllowList,
  type IpAllowList,
  type SourceIpCheck,
} from '../../util/ip-allowlist';
import type { RouteContext } from '../types';
import type { DarajaAccountSettings } from './schema';

/** Account settings are parsed once per process; their lists are compiled once per list. */
const compiled = new WeakMap<readonly string[], IpAllowList>();

function allowListOf(cidrs: readonly string[]): IpAllowList {
  let list = compiled.get(cidrs);
  if (!list) {
    list = createIpAllowList(cidrs);
    compiled.set(cidrs, list);
  }
  return list;
}

/**
 * Daraja callbacks are unsigned: besides the optional path secret, the source IP (API Gateway's
 * `requestContext.http.sourceIp`) must be in the account's allow-list. The result is stored on the
 * receipt (`verification.sourceIp`); in `enforce` a miss is refused (403, quarantined, CallbackRejected),
 * in `log-only` it is logged as a warning (alarm on it) and the callback proceeds.
 */
export function verifyDarajaSource(ctx: RouteContext<DarajaAccountSettings>): SourceIpCheck {
  const { mode, allow } = ctx.account.settings.sourceIp;
  const check = checkSourceIp(ctx.request.sourceIp, allowListOf(allow), mode);
  ctx.verification.sourceIp = {
    ip: check.ip,
    mode: check.mode,
    verdict: check.verdict,
    ...(check.matched ? { matched: check.matched } : {}),
  };
  if (check.reject) {
    throw new ForbiddenSourceError(
      `Source IP ${check.ip} is not in the Daraja allow-list of account ${ctx.account.id}`,
      { details: { sourceIp: check.ip } },
    );
  }
  if (check.verdict === 'denied') {
    ctx.services.log.warn('daraja source IP not in allow-list (log-only: accepted)', {
      provider: 'daraja',
      account: ctx.account.id,
      route: ctx.route.name,
      sourceIp: check.ip,
    });
  }
  return check;
}
