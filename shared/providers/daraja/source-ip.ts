import { ForbiddenSourceError } from '../../domain/errors';
import {
  checkSourceIp,
  createIpAllowList,
  type IpAllowList,
  type SourceIpCheck,
} from '../../util/ip-allowlist';
import type { CallbackInput, VerificationResult } from '../types';
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
 * in `log-only` it is logged as a warning (alarm on it) and the callback proceeds. Either way the body
 * itself is not authenticated.
 */
export function verifyDarajaSource(input: CallbackInput<DarajaAccountSettings>): VerificationResult {
  const { mode, allow } = input.account.settings.sourceIp;
  const check: SourceIpCheck = checkSourceIp(input.sourceIp, allowListOf(allow), mode);
  const facts = {
    sourceIp: {
      ip: check.ip,
      mode: check.mode,
      verdict: check.verdict,
      ...(check.matched ? { matched: check.matched } : {}),
    },
  };
  if (check.reject) {
    return {
      facts,
      authenticated: false,
      refusal: new ForbiddenSourceError(
        `Source IP ${check.ip} is not in the Daraja allow-list of account ${input.account.id}`,
        {
          details: { sourceIp: check.ip },
        },
      ),
    };
  }
  if (check.verdict === 'denied') {
    return {
      facts,
      authenticated: false,
      warning: 'daraja source IP not in allow-list (log-only: accepted)',
    };
  }
  return { facts, authenticated: false };
}
