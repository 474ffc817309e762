/**
 * Fault knobs. One syntax everywhere (the `X-Sim-Fault` header, `PUT /_sim/faults`, the `faults` option):
 * comma-separated tokens such as `drop`, `delay=2000`, `repeat=3`. All durations are real milliseconds,
 * not scaled by `timeScale`, because they model network behaviour, not provider business time.
 */
import type { ProviderName } from './http';

export interface FaultSet {
  /** Do not send the final callback at all (still logged as `dropped`). */
  drop?: true;
  /** Wait this long before sending each callback. */
  delayMs?: number;
  /** Send the final callback this many times in total. */
  repeat?: number;
  /** After the final callback, send one carrying an earlier, non-final status. */
  staleAfterFinal?: true;
  /** Airtel: replace the hash/signature by a wrong value of the same length and alphabet. */
  corruptHash?: true;
  /** Send from an address outside the provider's published list (`true` = the configured foreign IP). */
  foreignIp?: true | string;
  /** Answer status calls with this 5xx code. */
  status5xx?: number;
  /** Only the first N status calls get the 5xx (counted per place the fault was set). */
  status5xxTimes?: number;
  /** Answer status calls only after this delay. */
  statusSlowMs?: number;
  /** Tokens issued under this fault stop working after this many ms although `expires_in` says otherwise. */
  tokenExpireEarlyMs?: number;
  /** Daraja B2C / transaction status: force the queue timeout, optionally choosing the notice shape. */
  queueTimeout?: 'configured' | 'echo' | 'result';
  /** With a queue timeout: the real result still arrives, this many ms after the notice. */
  lateResultMs?: number;
  /** Daraja transaction status: post the result before answering the query (the caller's record comes late). */
  resultFirst?: true;
  /** Daraja, any operation: refuse with 500.003.03 quota violation (`true` = always, N = the first N calls). */
  quota?: RefusalBudget;
  /** Daraja, any operation: refuse with 500.003.02 spike arrest violation. */
  spike?: RefusalBudget;
  /** Daraja, any operation: refuse with 500.003.1001 internal server error. */
  internalError?: RefusalBudget;
  /** Airtel `GET /v1/rsa/encryption-keys`: refuse with DP02010001000 (key could not be fetched). */
  keysUnavailable?: RefusalBudget;
}

/** `true`: every call is refused; a number: only that many calls, counted per place the fault was set. */
export type RefusalBudget = true | number;

/** Fault knobs that refuse a whole call up front, before the operation looks at it. */
const REFUSAL_FAULTS = {
  quota: 'quota',
  spike: 'spike',
  internalError: 'internal-error',
  keysUnavailable: 'keys-unavailable',
} as const satisfies Record<string, string>;

export type RefusalFault = keyof typeof REFUSAL_FAULTS;

export class FaultSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FaultSpecError';
  }
}

function intValue(
  name: string,
  value: string | undefined,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined || !/^\d+$/.test(value))
    throw new FaultSpecError(`fault "${name}" needs an integer value`);
  const n = Number(value);
  if (n < min || n > max) throw new FaultSpecError(`fault "${name}" must be between ${min} and ${max}`);
  return n;
}

export function parseFaults(spec: string | undefined): FaultSet {
  const out: FaultSet = {};
  if (!spec) return out;
  for (const rawToken of spec.split(',')) {
    const token = rawToken.trim();
    if (!token) continue;
    const eq = token.indexOf('=');
    const name = (eq < 0 ? token : token.slice(0, eq)).trim().toLowerCase();
    const value = eq < 0 ? undefined : token.slice(eq + 1).trim();
    // The refusal knobs: bare (every call) or `=N` (the next N calls).
    const refusal = (Object.keys(REFUSAL_FAULTS) as RefusalFault[]).find(
      (key) => REFUSAL_FAULTS[key] === name,
    );
    if (refusal) {
      out[refusal] = value === undefined ? true : intValue(name, value, 1);
      continue;
    }
    switch (name) {
      case 'drop':
        out.drop = true;
        break;
      case 'delay':
        out.delayMs = intValue(name, value, 0);
        break;
      case 'repeat':
        out.repeat = intValue(name, value, 1, 100);
        break;
      case 'stale-after-final':
        out.staleAfterFinal = true;
        break;
      case 'corrupt-hash':
        out.corruptHash = true;
        break;
      case 'foreign-ip':
        out.foreignIp = value ? value : true;
        break;
      case 'status-5xx':
        out.status5xx = value === undefined ? 500 : intValue(name, value, 500, 599);
        break;
      case 'status-5xx-times':
        out.status5xxTimes = intValue(name, value, 1);
        break;
      case 'status-slow':
        out.statusSlowMs = intValue(name, value, 0);
        break;
      case 'token-expire-early':
        out.tokenExpireEarlyMs = value === undefined ? 0 : intValue(name, value, 0);
        break;
      case 'queue-timeout':
        if (value !== undefined && value !== 'echo' && value !== 'result') {
          throw new FaultSpecError('fault "queue-timeout" takes no value, "echo" or "result"');
        }
        out.queueTimeout = value ?? 'configured';
        break;
      case 'late-result':
        out.lateResultMs = intValue(name, value, 0);
        break;
      case 'result-first':
        out.resultFirst = true;
        break;
      default:
        throw new FaultSpecError(`unknown fault "${name}"`);
    }
  }
  return out;
}

export function formatFaults(set: FaultSet): string {
  const parts: string[] = [];
  if (set.drop) parts.push('drop');
  if (set.delayMs !== undefined) parts.push(`delay=${set.delayMs}`);
  if (set.repeat !== undefined) parts.push(`repeat=${set.repeat}`);
  if (set.staleAfterFinal) parts.push('stale-after-final');
  if (set.corruptHash) parts.push('corrupt-hash');
  if (set.foreignIp) parts.push(set.foreignIp === true ? 'foreign-ip' : `foreign-ip=${set.foreignIp}`);
  if (set.status5xx !== undefined) parts.push(`status-5xx=${set.status5xx}`);
  if (set.status5xxTimes !== undefined) parts.push(`status-5xx-times=${set.status5xxTimes}`);
  if (set.statusSlowMs !== undefined) parts.push(`status-slow=${set.statusSlowMs}`);
  if (set.tokenExpireEarlyMs !== undefined) parts.push(`token-expire-early=${set.tokenExpireEarlyMs}`);
  if (set.queueTimeout !== undefined) {
    parts.push(set.queueTimeout === 'configured' ? 'queue-timeout' : `queue-timeout=${set.queueTimeout}`);
  }
  if (set.lateResultMs !== undefined) parts.push(`late-result=${set.lateResultMs}`);
  if (set.resultFirst) parts.push('result-first');
  for (const [member, token] of Object.entries(REFUSAL_FAULTS) as [RefusalFault, string][]) {
    const budget = set[member];
    if (budget !== undefined) parts.push(budget === true ? token : `${token}=${budget}`);
  }
  return parts.join(',');
}

/** Later sets override earlier ones, member by member. */
function mergeFaults(...sets: (FaultSet | undefined)[]): FaultSet {
  const out: FaultSet = {};
  for (const set of sets) {
    if (!set) continue;
    for (const [k, v] of Object.entries(set)) {
      if (v !== undefined) (out as Record<string, unknown>)[k] = v;
    }
  }
  return out;
}

/**
 * A fault set plus what is left of its counted faults (`status-5xx-times`, `quota=N`, …), consumed as
 * calls arrive; a global holder lives until the next `PUT /_sim/faults`, so its counts span requests.
 */
export class FaultHolder {
  status5xxRemaining: number | undefined;
  readonly refusalsRemaining: Partial<Record<RefusalFault, number>> = {};

  constructor(readonly set: FaultSet) {
    this.status5xxRemaining = set.status5xxTimes;
    for (const member of Object.keys(REFUSAL_FAULTS) as RefusalFault[]) {
      const budget = set[member];
      if (typeof budget === 'number') this.refusalsRemaining[member] = budget;
    }
  }

  /** True when this holder refuses the call with `fault`, spending one of its counted refusals. */
  refuses(fault: RefusalFault): boolean {
    const budget = this.set[fault];
    if (budget === undefined) return false;
    if (budget === true) return true;
    const left = this.refusalsRemaining[fault] ?? 0;
    if (left <= 0) return false;
    this.refusalsRemaining[fault] = left - 1;
    return true;
  }
}

export type FaultScope = 'all' | ProviderName;
const FAULT_SCOPES: FaultScope[] = ['all', 'momo', 'airtel', 'daraja'];

export type GlobalFaultsInput = Partial<Record<FaultScope, string>>;

/** Global faults, per provider plus one scope for all providers. */
export class FaultStore {
  private holders = new Map<FaultScope, FaultHolder>();

  constructor(private readonly initial: GlobalFaultsInput = {}) {
    this.replace(initial);
  }

  replace(input: GlobalFaultsInput): void {
    const next = new Map<FaultScope, FaultHolder>();
    for (const [scope, spec] of Object.entries(input)) {
      if (!FAULT_SCOPES.includes(scope as FaultScope))
        throw new FaultSpecError(`unknown fault scope "${scope}"`);
      if (typeof spec !== 'string') throw new FaultSpecError(`faults for "${scope}" must be a string`);
      const set = parseFaults(spec);
      if (Object.keys(set).length > 0) next.set(scope as FaultScope, new FaultHolder(set));
    }
    this.holders = next;
  }

  resetToInitial(): void {
    this.replace(this.initial);
  }

  /** Most specific first: the provider's scope, then `all`. */
  holdersFor(provider: ProviderName): FaultHolder[] {
    return [this.holders.get(provider), this.holders.get('all')].filter(
      (h): h is FaultHolder => h !== undefined,
    );
  }

  snapshot(): Record<
    string,
    { spec: string; status5xxRemaining?: number; refusalsRemaining?: Partial<Record<string, number>> }
  > {
    const out: ReturnType<FaultStore['snapshot']> = {};
    for (const [scope, h] of this.holders) {
      out[scope] = { spec: formatFaults(h.set) };
      if (h.status5xxRemaining !== undefined) out[scope].status5xxRemaining = h.status5xxRemaining;
      const refusals = Object.entries(h.refusalsRemaining).map(
        ([member, left]) => [REFUSAL_FAULTS[member as RefusalFault], left] as const,
      );
      if (refusals.length > 0) out[scope].refusalsRemaining = Object.fromEntries(refusals);
    }
    return out;
  }
}

/** Callback faults in force now: global `all`, then the provider's global scope, then the transaction's own. */
export function effectiveCallbackFaults(
  store: FaultStore,
  provider: ProviderName,
  txn?: FaultHolder,
): FaultSet {
  const globalHolders = store.holdersFor(provider).reverse();
  return mergeFaults(...globalHolders.map((h) => h.set), txn?.set);
}

export interface StatusFaultDecision {
  status5xx?: number;
  slowMs?: number;
}

/**
 * Decides whether a status call fails or is slow. Holders are given most specific first (this request,
 * the transaction, the provider's global scope, `all`); the first one that still has a 5xx to give wins,
 * and its `status-5xx-times` budget is consumed.
 */
export function decideStatusFault(holders: (FaultHolder | undefined)[]): StatusFaultDecision {
  const decision: StatusFaultDecision = {};
  for (const h of holders) {
    if (!h) continue;
    if (decision.slowMs === undefined && h.set.statusSlowMs !== undefined)
      decision.slowMs = h.set.statusSlowMs;
    if (decision.status5xx === undefined && h.set.status5xx !== undefined) {
      if (h.status5xxRemaining === undefined) {
        decision.status5xx = h.set.status5xx;
      } else if (h.status5xxRemaining > 0) {
        h.status5xxRemaining--;
        decision.status5xx = h.set.status5xx;
      }
    }
  }
  return decision;
}

/**
 * The first holder (most specific first) that refuses the call with `fault`; only that holder's count is
 * spent, so a request's own header never uses up a global `quota=N`.
 */
export function refusedBy(holders: (FaultHolder | undefined)[], fault: RefusalFault): boolean {
  return holders.some((h) => h?.refuses(fault) === true);
}

/** Token faults: the most specific `token-expire-early` wins. */
export function tokenExpireEarlyMs(holders: (FaultHolder | undefined)[]): number | undefined {
  for (const h of holders) {
    if (h?.set.tokenExpireEarlyMs !== undefined) return h.set.tokenExpireEarlyMs;
  }
  return undefined;
}
