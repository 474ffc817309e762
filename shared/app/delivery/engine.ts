import type { DestinationConfig } from '../../config/schema';
import type { EventEnvelope } from '../../domain/event-envelope';
import { ConfigError } from '../../domain/errors';
import { scrubThenTruncate, type Scrubber } from '../../util/redact';
import { retryAfterMs } from '../../util/retry-after';
import { maskMsisdnsIn } from '../../util/mask';
import type { Clock, RelayLogger } from '../ports';
import type { DeliveryAnswer, DestinationIo } from '../../destinations/ports';
import { createDeliverers, destinationProblems } from '../../destinations/registry';
import type { Deliverer } from '../../destinations/types';
import { webhookHeaders } from './signing';
import {
  type DestinationDisabledData,
  destinationDisabledEvent,
  OPERATOR_EVENT_TYPES,
} from './disabled-event';
import type {
  DeliveredEvent,
  DeliveryLog,
  DeliverySelector,
  DestinationState,
  DestinationStateStore,
  Scheduler,
  WebhookSender,
} from './ports';

/** The ports of the destination types beyond HTTP (sqs: its queue sender and STS), when this process has them. */
type ExtraDestinationIo = Pick<DestinationIo, 'queues' | 'roles'>;

/** Each type's sender, built once (its caches live as long as the process). */
export type Deliverers = (type: string) => Deliverer<unknown>;

/** Characters of a response kept in the delivery log, after scrubbing. */
const EXCERPT_CHARS = 512;
/** A Retry-After longer than a day is read as a day: the schedule's longest wait. */
const MAX_RETRY_AFTER_SECONDS = 86_400;

/**
 * How often a paused destination's held deliveries look at its state again: a resume from another process
 * (the management API in AWS) is seen within this time; the local API wakes the engine at once.
 */
const PAUSE_RECHECK_MS = 5000;

/**
 * How long after an attempt whose log or state write failed (the store unreachable) the same attempt is made
 * again: the store's failure is not the destination's, so it counts no attempt and no failure.
 */
const STORE_RETRY_MS = 5000;

/**
 * Refused by a stopped engine (DeliveryEngine.stop): a submit after the stop (the publisher then reports the
 * batch failed and it is published again by the next start), or a write of an attempt that was still running
 * when the stop stopped waiting for it (not made: the stores are closing).
 */
export class DeliveryEngineStoppedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DeliveryEngineStoppedError';
  }
}

/**
 * The operator's signal that a destination stopped receiving: `event` is the `DestinationDisabled` to
 * publish (`npm start` writes it to its event stream; AWS publishes it through the table's outbox).
 */
type DestinationDisabledListener = (
  destination: string,
  reason: string,
  at: string,
  event: EventEnvelope<DestinationDisabledData>,
) => void;

/** One event's turn at one destination: its attempt number (0 first) and who replayed it, if anyone. */
export interface AttemptJob {
  event: DeliveredEvent;
  attempt: number;
  replayedBy?: string;
}
type Job = AttemptJob;

interface Lane {
  ready: Job[];
  /** Jobs that found the destination paused: sent, in order, once it is resumed. */
  held: Job[];
  recheckScheduled: boolean;
  inFlight: number;
  /** Earliest time (ms) the next attempt may start: 1 / ratePerSecond after the previous one. */
  nextStartMs: number;
  wakeScheduled: boolean;
}

export interface DeliveryEngineDeps {
  destinations: Readonly<Record<string, DestinationConfig>>;
  /** The destination's signing secrets, current first (from the config or its `signingSecretId`). */
  secretsOf: (destination: string) => readonly string[];
  sender: WebhookSender;
  /** The other types' ports (sqs). */
  io?: ExtraDestinationIo;
  log: DeliveryLog;
  /** Pause, disabling, failure streak and secret rotation: read before every attempt (one store, every path). */
  states: DestinationStateStore;
  /** Reads a rotated-in secret by its reference (docs/webhooks.md#rotating-a-secret); absent: no rotation. */
  resolveSecret?: (secretRef: string) => Promise<string>;
  clock: Clock;
  scheduler: Scheduler;
  scrub: Scrubber;
  /** In AWS http destinations and private addresses are refused whatever the config says. */
  runtime: 'local' | 'aws';
  onDisabled?: DestinationDisabledListener;
  /** Where an attempt that failed for the store's sake (not the destination's) is logged. */
  logger?: Pick<RelayLogger, 'warn'>;
}

/**
 * Whether a destination's filter takes an event (empty lists take everything). Operator events about
 * destinations (DestinationDisabled) are never delivered: they name other partners.
 */
function destinationAccepts(destination: DestinationConfig, event: EventEnvelope): boolean {
  if (OPERATOR_EVENT_TYPES.has(event.metadata.type)) return false;
  const { eventTypes, providers, accounts } = destination.filter;
  const data = event.data as { provider?: unknown; account?: unknown };
  const has = (list: readonly string[], value: unknown) =>
    list.length === 0 || (typeof value === 'string' && list.includes(value));
  return has(eventTypes, event.metadata.type) && has(providers, data.provider) && has(accounts, data.account);
}

/**
 * Whole seconds to wait from a Retry-After value (shared/util/retry-after.ts reads it: delta-seconds or an
 * HTTP-date, anything else ignored), a day at most.
 */
export function retryAfterSeconds(value: string | undefined, now: Date): number | undefined {
  const ms = retryAfterMs(value, now.getTime());
  return ms === undefined ? undefined : Math.min(Math.ceil(ms / 1000), MAX_RETRY_AFTER_SECONDS);
}

/**
 * Delivers normalized events to the configured destinations as Standard Webhooks (docs/webhooks.md):
 * at least once, `webhook-id` = the event id on every attempt and replay. Each destination has its own
 * lane (queue, concurrency, rate), so a slow or dead destination never delays another. An attempt's
 * outcome: 2xx delivered; 410 disables the destination; anything else (3xx included, never followed, and
 * no answer at all) is retried on the destination's schedule, a 429/503's Retry-After waited at least;
 * past the schedule the event is dead-lettered; `disableAfterFailures` failures in a row disable it.
 */
export class DeliveryEngine {
  private readonly lanes = new Map<string, Lane>();
  private readonly pending = new Set<Promise<void>>();
  private readonly deliverers: Deliverers;
  /** stop() was called: no new attempt starts, no scheduled one runs. */
  private stopping = false;
  /** stop() stopped waiting: what still runs writes nothing (the stores are being closed). */
  private closed = false;
  /** The log and the states as attempts see them: refused once closed. */
  private readonly log: DeliveryLog;
  private readonly states: DestinationStateStore;

  constructor(private readonly deps: DeliveryEngineDeps) {
    this.log = this.refusedOnceClosed(deps.log);
    this.states = this.refusedOnceClosed(deps.states);
    const io: DestinationIo = { http: deps.sender, now: () => deps.clock.now(), ...deps.io };
    // Refused at start, each problem naming its destination and field (an sqs destination without an
    // emulator's endpointUrl under npm start, http in AWS…), rather than failing attempt after attempt.
    const problems = destinationProblems(deps.destinations, { runtime: deps.runtime, io });
    if (problems.length) throw new ConfigError(`Invalid relay config:\n${problems.join('\n')}`);
    this.deliverers = createDeliverers(io);
    for (const name of Object.keys(deps.destinations)) {
      if (deps.secretsOf(name).length === 0)
        throw new Error(`destinations.${name}: no signing secret (signingSecrets or signingSecretId)`);
      this.lanes.set(name, {
        ready: [],
        held: [],
        recheckScheduled: false,
        inFlight: 0,
        nextStartMs: 0,
        wakeScheduled: false,
      });
    }
  }

  state(destination: string): Promise<DestinationState> {
    return this.deps.states.get(destination);
  }

  /** `port` whose every call throws DeliveryEngineStoppedError once the engine is closed. */
  private refusedOnceClosed<T extends object>(port: T): T {
    return new Proxy(port, {
      get: (target, name, receiver) => {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (this.closed)
            return Promise.reject(
              new DeliveryEngineStoppedError(`delivery engine stopped: ${String(name)} not made`),
            );
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }

  /**
   * Stops delivering, in the order a process stops (npm start's shutdown): no new attempt starts and no
   * scheduled retry or recheck runs from now on (pending retries are kept in memory only, docs/webhooks.md);
   * the attempts in flight are waited for until they end or `hurry` aborts, after which whatever still runs
   * writes nothing, so the log and the states can be closed (and their table dropped) after it resolves.
   */
  async stop(hurry?: AbortSignal): Promise<void> {
    this.stopping = true;
    if (!hurry?.aborted) {
      const hurried = new Promise<void>((resolve) =>
        hurry?.addEventListener('abort', () => resolve(), { once: true }),
      );
      await Promise.race([this.settled(), hurried]);
    }
    this.closed = true;
  }

  /** Takes one published event: each destination whose filter accepts it gets its own delivery. */
  async submit(event: EventEnvelope): Promise<string[]> {
    if (this.stopping) throw new DeliveryEngineStoppedError('delivery engine stopped: event not taken');
    const targets = Object.entries(this.deps.destinations)
      .filter(([, destination]) => destinationAccepts(destination, event))
      .map(([name]) => name);
    if (targets.length === 0) return [];
    const delivered: DeliveredEvent = {
      eventId: event.metadata.id,
      eventType: event.metadata.type,
      correlationId: event.metadata.correlationId,
      occurredAt: event.metadata.occurredAt,
      body: JSON.stringify(event),
    };
    await this.log.recordEvent(delivered);
    for (const name of targets) this.enqueue(name, { event: delivered, attempt: 0 });
    return targets;
  }

  /**
   * Re-sends the logged events the selector matches to one destination, with their original ids. A dry run
   * only counts them; a real one is audited with the person who asked.
   */
  async replay(
    destination: string,
    selector: DeliverySelector,
    options: { dryRun: boolean; actor: string },
  ): Promise<{ count: number }> {
    if (!this.deps.destinations[destination]) throw new Error(`no destination "${destination}"`);
    const events = await this.log.events(selector);
    if (options.dryRun) return { count: events.length };
    await this.log.recordReplay({
      destination,
      selector,
      count: events.length,
      actor: options.actor,
      at: this.deps.clock.now().toISOString(),
    });
    for (const event of events) this.enqueue(destination, { event, attempt: 0, replayedBy: options.actor });
    return { count: events.length };
  }

  /** Re-enables a paused or disabled destination (an operator's decision, after the partner fixed their endpoint). */
  async resume(destination: string): Promise<void> {
    await this.states.resume(destination);
    this.wake(destination);
  }

  /** Its state changed (a resume): held deliveries are looked at again now, not at the next recheck. */
  wake(destination: string): void {
    const lane = this.lanes.get(destination);
    if (!lane) return;
    const held = lane.held.splice(0);
    lane.ready.unshift(...held);
    this.pump(destination);
  }

  /** Resolves when no attempt is in flight (tests and shutdown; scheduled retries are not waited for). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** The scheduler's `after`, except that nothing it was given runs once the engine is stopping. */
  private after(delayMs: number, task: () => void): void {
    this.deps.scheduler.after(delayMs, () => {
      if (!this.stopping) task();
    });
  }

  private enqueue(destination: string, job: Job): void {
    const schedule = this.deps.destinations[destination]!.retryScheduleSeconds;
    const delaySeconds = schedule[job.attempt] ?? 0;
    if (delaySeconds > 0) this.after(delaySeconds * 1000, () => this.ready(destination, job));
    else this.ready(destination, job);
  }

  private ready(destination: string, job: Job): void {
    this.lanes.get(destination)!.ready.push(job);
    this.pump(destination);
  }

  private pump(destination: string): void {
    const lane = this.lanes.get(destination)!;
    const config = this.deps.destinations[destination]!;
    while (!this.stopping && lane.ready.length > 0 && lane.inFlight < config.concurrency) {
      const nowMs = this.deps.clock.now().getTime();
      if (nowMs < lane.nextStartMs) {
        if (!lane.wakeScheduled) {
          lane.wakeScheduled = true;
          this.after(lane.nextStartMs - nowMs, () => {
            lane.wakeScheduled = false;
            this.pump(destination);
          });
        }
        return;
      }
      lane.nextStartMs = Math.max(nowMs, lane.nextStartMs) + 1000 / config.ratePerSecond;
      const job = lane.ready.shift()!;
      lane.inFlight += 1;
      const running = this.attempt(destination, job)
        .catch((error: unknown) => this.attemptNotRecorded(destination, job, error))
        .finally(() => {
          lane.inFlight -= 1;
          this.pending.delete(running);
          this.pump(destination);
        });
      this.pending.add(running);
    }
  }

  /** Holds a job while its destination is paused, looking again after PAUSE_RECHECK_MS. */
  private hold(destination: string, job: Job): void {
    const lane = this.lanes.get(destination)!;
    lane.held.push(job);
    if (lane.recheckScheduled) return;
    lane.recheckScheduled = true;
    this.after(PAUSE_RECHECK_MS, () => {
      lane.recheckScheduled = false;
      this.wake(destination);
    });
  }

  /**
   * An attempt that threw: its state or log write failed (the store unreachable, or the engine stopped).
   * Made again after STORE_RETRY_MS with the same attempt number while the engine runs (at least once: the
   * endpoint may get it twice, with the same webhook-id); a stopped engine keeps it no more than its retries.
   */
  private attemptNotRecorded(destination: string, job: Job, error: unknown): void {
    // Cut by stop(): its retries are forgotten with the others (in memory only).
    if (error instanceof DeliveryEngineStoppedError) return;
    this.deps.logger?.warn('webhook attempt not recorded (the store failed); made again later', {
      destination,
      eventId: job.event.eventId,
      attempt: job.attempt,
      error: error instanceof Error ? error.message : String(error),
    });
    this.after(STORE_RETRY_MS, () => this.ready(destination, job));
  }

  /** One attempt through attemptDelivery (the AWS delivery function's code too); the lane does what comes next. */
  private async attempt(destination: string, job: Job): Promise<void> {
    const result = await attemptDelivery(
      {
        destination,
        config: this.deps.destinations[destination]!,
        secrets: this.deps.secretsOf(destination),
        ...(this.deps.resolveSecret ? { resolveSecret: this.deps.resolveSecret } : {}),
        sender: this.deps.sender,
        deliverers: this.deliverers,
        log: this.log,
        clock: this.deps.clock,
        scrub: this.deps.scrub,
        runtime: this.deps.runtime,
        states: this.states,
      },
      job,
    );
    if (result.outcome === 'held') this.hold(destination, job);
    else if (result.outcome === 'destination-disabled' && result.event)
      this.deps.onDisabled?.(
        destination,
        result.event.data.detail,
        result.event.data.disabledAt,
        result.event,
      );
    else if (result.outcome === 'retrying') {
      const retry: Job = { ...job, attempt: job.attempt + 1 };
      if (result.delaySeconds > 0)
        this.after(result.delaySeconds * 1000, () => this.ready(destination, retry));
      else this.ready(destination, retry);
    }
  }
}

/**
 * The secrets that sign now, current first: the config's, or after a rotation the rotated-in secret and,
 * until the window ends, the one it replaced (both signatures are sent).
 */
async function signingSecretsNow(
  ctx: AttemptContext,
  state: DestinationState,
  nowMs: number,
): Promise<readonly string[]> {
  const rotation = state.rotation;
  if (!rotation || !ctx.resolveSecret) return ctx.secrets;
  const primary = await ctx.resolveSecret(rotation.secretRef);
  if (nowMs >= Date.parse(rotation.windowEndsAt)) return [primary];
  const previous = rotation.previousSecretRef
    ? await ctx.resolveSecret(rotation.previousSecretRef)
    : ctx.secrets[0];
  return previous && previous !== primary ? [primary, previous] : [primary];
}

/** What one attempt needs: the engine's lane in `npm start`, the delivery function's batch in AWS. */
export interface AttemptContext {
  destination: string;
  config: DestinationConfig;
  /** The destination's signing secrets, current first. */
  secrets: readonly string[];
  sender: WebhookSender;
  /** Each destination type's sender (built once by the caller); absent: built here from `sender` (https only). */
  deliverers?: Deliverers;
  log: DeliveryLog;
  clock: Clock;
  scrub: Scrubber;
  runtime: 'local' | 'aws';
  /** Pause, disabling, failure streak and rotation: the one store the management API writes too. */
  states: DestinationStateStore;
  /** Reads a rotated-in secret by its reference (docs/webhooks.md#rotating-a-secret); absent: no rotation. */
  resolveSecret?: (secretRef: string) => Promise<string>;
}

export type AttemptResult =
  | { outcome: 'delivered' | 'dead-letter' }
  /** Paused by a person: not attempted, not logged, not a failure; the caller keeps the job for later. */
  | { outcome: 'held' }
  /** Attempt `job.attempt + 1` is due after `delaySeconds` (the schedule's next entry, or a longer Retry-After). */
  | { outcome: 'retrying'; delaySeconds: number }
  /** `event`: this attempt disabled it (publish it once); absent: it was already disabled. */
  | { outcome: 'destination-disabled'; event?: EventEnvelope<DestinationDisabledData> };

/**
 * One attempt of one event to one destination, recorded in the delivery log, and what comes next — the
 * same code in `npm start` (DeliveryEngine) and in the AWS delivery function (queue-delivery.ts). 2xx
 * delivered; 410 disables the destination; anything else (3xx included, never followed, and no answer at
 * all) is a failure: retried after the schedule's next entry (a 429/503's Retry-After waited at least),
 * dead-lettered past its end, and `disableAfterFailures` failures in a row disable the destination. A
 * disabled destination's events are dead-lettered without being sent.
 */
export async function attemptDelivery(ctx: AttemptContext, job: AttemptJob): Promise<AttemptResult> {
  const started = ctx.clock.now();
  const base = {
    eventId: job.event.eventId,
    correlationId: job.event.correlationId,
    destination: ctx.destination,
    attempt: job.attempt,
    at: started.toISOString(),
    ...(job.replayedBy ? { replayedBy: job.replayedBy } : {}),
  };
  const current = await ctx.states.get(ctx.destination);
  if (current.paused && !current.disabled) return { outcome: 'held' };
  if (current.disabled) {
    // Kept for a replay once the destination is resumed, never sent to an endpoint that said Gone.
    await ctx.log.recordAttempt({
      ...base,
      status: null,
      latencyMs: 0,
      outcome: 'dead-letter',
      excerpt: `not sent: destination disabled (${current.disabledReason ?? 'disabled'})`,
    });
    return { outcome: 'dead-letter' };
  }
  const { response, secrets } = await send(ctx, job, current, started);
  const finished = ctx.clock.now();
  const status = response.kind === 'answered' ? response.status : null;
  const attempt: Attempt = {
    record: {
      ...base,
      status,
      latencyMs: finished.getTime() - started.getTime(),
      excerpt: excerptOf(ctx, response, secrets),
    },
    response,
    status,
    finished,
  };
  const delivered = response.kind === 'accepted' || (status !== null && status >= 200 && status < 300);
  if (!delivered) return afterFailure(ctx, job, attempt);
  await ctx.states.recordAttempt(ctx.destination, {
    at: finished.toISOString(),
    status,
    outcome: 'delivered',
    failed: false,
  });
  await ctx.log.recordAttempt({ ...attempt.record, outcome: 'delivered' });
  return { outcome: 'delivered' };
}

/** One attempt's answer and what is logged of it, before its outcome is known. */
interface Attempt {
  record: Omit<Parameters<DeliveryLog['recordAttempt']>[0], 'outcome' | 'nextAttemptAt'>;
  response: DeliveryAnswer;
  status: number | null;
  finished: Date;
}

/**
 * Sends the event through its destination type, signed with the secrets valid now (a rotation's old and
 * new). Any throw (the secret unreadable, the type failing) is a failed answer: retried like no answer.
 */
async function send(
  ctx: AttemptContext,
  job: AttemptJob,
  current: DestinationState,
  started: Date,
): Promise<{ response: DeliveryAnswer; secrets: readonly string[] }> {
  let secrets: readonly string[] = ctx.secrets;
  try {
    secrets = await signingSecretsNow(ctx, current, started.getTime());
    const deliverers = ctx.deliverers ?? createDeliverers({ http: ctx.sender, now: () => ctx.clock.now() });
    const timestamp = Math.floor(started.getTime() / 1000);
    const response = await deliverers(ctx.config.type).deliver({
      destination: ctx.destination,
      settings: ctx.config.settings,
      body: job.event.body,
      eventId: job.event.eventId,
      correlationId: job.event.correlationId,
      signature: webhookHeaders(job.event.eventId, timestamp, job.event.body, secrets),
      timeoutMs: ctx.config.timeoutMs,
      runtime: ctx.runtime,
    });
    return { response, secrets };
  } catch (error) {
    return {
      response: { kind: 'failed', error: error instanceof Error ? error.message : String(error) },
      secrets,
    };
  }
}

/** What the delivery log keeps of an answer: secrets out, numbers masked, cut to EXCERPT_CHARS. */
function excerptOf(ctx: AttemptContext, response: DeliveryAnswer, secrets: readonly string[]): string {
  // A rotated-in secret is not in the config's scrubber: removed here too, should an endpoint echo it.
  const scrub = (text: string) =>
    secrets.reduce((clean, secret) => clean.split(secret).join('[secret]'), ctx.scrub(text));
  // Scrubbed before masking: masking first would alter a secret holding a run of digits (an API key
  // with a phone-number-like run), so the scrubber no longer recognised it and the rest of it was logged.
  return scrubThenTruncate(
    response.kind === 'answered' || response.kind === 'accepted' ? response.excerpt : response.error,
    EXCERPT_CHARS,
    (text) => maskMsisdnsIn(scrub(text)),
  );
}

/** A failed attempt: counted, then the destination disabled, the event dead-lettered or retried later. */
async function afterFailure(ctx: AttemptContext, job: AttemptJob, attempt: Attempt): Promise<AttemptResult> {
  const { config, destination } = ctx;
  const { record, response, status, finished } = attempt;
  const at = finished.toISOString();
  const failures = await ctx.states.recordAttempt(destination, {
    at,
    status,
    outcome: 'retrying',
    failed: true,
  });
  // Gone: a 410, or a type's answer that retrying cannot change (an SQS queue that does not exist or refuses).
  const gone = status === 410 || response.kind === 'rejected';
  const reason = gone ? 'gone' : failures >= config.disableAfterFailures ? 'consecutive-failures' : undefined;
  if (reason) {
    const event = destinationDisabledEvent({
      destination,
      reason,
      detail:
        response.kind === 'rejected'
          ? response.detail
          : reason === 'gone'
            ? '410 Gone'
            : `${failures} consecutive failed attempts`,
      lastStatus: status,
      consecutiveFailures: failures,
      disabledAt: at,
    });
    const first = await ctx.states.disable(destination, event);
    await ctx.log.recordAttempt({ ...record, outcome: 'destination-disabled' });
    return first ? { outcome: 'destination-disabled', event } : { outcome: 'destination-disabled' };
  }
  const next = job.attempt + 1;
  if (next >= config.retryScheduleSeconds.length) {
    await ctx.log.recordAttempt({ ...record, outcome: 'dead-letter' });
    return { outcome: 'dead-letter' };
  }
  const delaySeconds = retryDelaySeconds(config.retryScheduleSeconds[next]!, response);
  await ctx.log.recordAttempt({
    ...record,
    outcome: 'retrying',
    nextAttemptAt: new Date(finished.getTime() + delaySeconds * 1000).toISOString(),
  });
  return { outcome: 'retrying', delaySeconds };
}

/**
 * The statuses whose Retry-After is honoured: the ones a receiver, or the gateway or load balancer in front
 * of it, sends when it is throttled or out for a while.
 */
const RETRY_AFTER_STATUSES = new Set([429, 502, 503, 504]);

/** The schedule's delay, or a throttled answer's Retry-After when that is longer. */
function retryDelaySeconds(scheduled: number, response: DeliveryAnswer): number {
  if (
    response.kind === 'answered' &&
    RETRY_AFTER_STATUSES.has(response.status) &&
    response.retryAfterSeconds !== undefined
  )
    return Math.max(scheduled, response.retryAfterSeconds);
  return scheduled;
}
