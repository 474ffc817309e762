/**
 * Fault knobs of the badge routes, in the simulator's one fault syntax (comma-separated tokens):
 * `status-slow=MS`, `status-5xx[=CODE]`, `status-5xx-times=N` as elsewhere, plus `garbage-body` (the answer
 * is prefixed with a PHP warning, so it no longer parses as JSON). Sources, most specific first: the
 * request's `X-Sim-Fault` (the first three only: the shared parser knows no `garbage-body`), its
 * `X-Sim-Badge-Fault` (all four), then the badge scope set by the `badges.faults` option or
 * `PUT /_sim/badges/faults`. The global scopes of `/_sim/faults` (`all`, `momo`, …) do not apply here.
 */
import { decideStatusFault, FaultHolder, type FaultSet, FaultSpecError, parseFaults } from '../core/faults';

export interface BadgeFaultSet extends FaultSet {
  garbageBody?: true;
}

const ALLOWED: (keyof FaultSet)[] = ['status5xx', 'status5xxTimes', 'statusSlowMs'];
const BADGE_FAULT_TOKENS = 'status-slow=MS, status-5xx[=CODE], status-5xx-times=N, garbage-body';

export function parseBadgeFaults(spec: string | undefined): BadgeFaultSet {
  const out: BadgeFaultSet = {};
  if (!spec) return out;
  for (const raw of spec.split(',')) {
    const token = raw.trim();
    if (!token) continue;
    if (token.toLowerCase() === 'garbage-body') {
      out.garbageBody = true;
      continue;
    }
    const parsed = parseFaults(token);
    for (const [k, v] of Object.entries(parsed)) {
      if (!ALLOWED.includes(k as keyof FaultSet)) {
        throw new FaultSpecError(
          `fault "${token}" does not apply to the badge routes (use ${BADGE_FAULT_TOKENS})`,
        );
      }
      (out as Record<string, unknown>)[k] = v;
    }
  }
  return out;
}

function formatBadgeFaults(set: BadgeFaultSet): string {
  const parts: string[] = [];
  if (set.statusSlowMs !== undefined) parts.push(`status-slow=${set.statusSlowMs}`);
  if (set.status5xx !== undefined) parts.push(`status-5xx=${set.status5xx}`);
  if (set.status5xxTimes !== undefined) parts.push(`status-5xx-times=${set.status5xxTimes}`);
  if (set.garbageBody) parts.push('garbage-body');
  return parts.join(',');
}

/** The badge scope: one fault set whose `status-5xx-times` budget is consumed as calls arrive. */
export class BadgeFaultScope {
  private holder: FaultHolder | undefined;

  constructor(private readonly initial: string) {
    this.replace(initial);
  }

  replace(spec: string): void {
    const set = parseBadgeFaults(spec);
    this.holder = Object.keys(set).length > 0 ? new FaultHolder(set) : undefined;
  }

  resetToInitial(): void {
    this.replace(this.initial);
  }

  get current(): FaultHolder | undefined {
    return this.holder;
  }

  snapshot(): { spec: string; status5xxRemaining?: number } {
    const spec = this.holder ? formatBadgeFaults(this.holder.set) : '';
    const remaining = this.holder?.status5xxRemaining;
    return remaining === undefined ? { spec } : { spec, status5xxRemaining: remaining };
  }
}

export interface BadgeFaultDecision {
  slowMs?: number;
  status5xx?: number;
  garbageBody: boolean;
}

export function decideBadgeFaults(holders: (FaultHolder | undefined)[]): BadgeFaultDecision {
  const status = decideStatusFault(holders);
  const garbageBody = holders.some((h) => (h?.set as BadgeFaultSet | undefined)?.garbageBody === true);
  return { ...status, garbageBody };
}

/** What a PHP site prints before its JSON when a plugin raises a warning with display_errors on. */
export const GARBAGE_PREFIX =
  '<br />\n<b>Warning</b>:  Undefined array key "justify-content" in <b>/var/www/html/wp-content/plugins/cpbw/includes/class-cpbw-rest.php</b> on line <b>217</b><br />\n';
