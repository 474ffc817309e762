import { SchemaValidationError } from '../../domain/errors';
import { isTimeZone } from '../../util/time-zone';
import type { RelayConfig } from '../../config/schema';
import type { TimeZonesView } from '../management-answers';
import { statementSettings } from '../statements/statement-sink';

/**
 * The business time zones the console shows times in by default (docs/console.md#time-zone): each
 * account's is the one its business days are counted in (statements.accounts, else the provider's
 * default), so a time on screen and the day it is filed under agree. `business` is the zone most accounts
 * share (on a tie the first configured), for the views that span accounts.
 */
export function businessTimeZones(config: RelayConfig): TimeZonesView {
  const accounts: Record<string, string> = {};
  const votes = new Map<string, number>();
  for (const [key, account] of config.accounts) {
    const zone = statementSettings(config, account.provider, account.id).timeZone;
    accounts[key] = zone;
    votes.set(zone, (votes.get(zone) ?? 0) + 1);
  }
  let business = 'UTC';
  let most = 0;
  for (const [zone, count] of votes)
    if (count > most) {
      business = zone;
      most = count;
    }
  return { business, accounts };
}

/**
 * `?timeZone=` on a transaction's answer: the zone its story's sentence tells times in (UTC when absent).
 * A zone the platform does not know is a 400 naming the parameter.
 */
export function storyTimeZone(query: Record<string, string | undefined>): string {
  const zone = query.timeZone;
  if (zone === undefined || zone === '') return 'UTC';
  if (zone.length > 64 || !isTimeZone(zone))
    throw new SchemaValidationError('timeZone must be an IANA time zone such as Africa/Nairobi or UTC', {
      details: { parameter: 'timeZone' },
    });
  return zone;
}
