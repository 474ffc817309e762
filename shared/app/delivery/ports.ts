import type { EventEnvelope } from '../../domain/event-envelope';
import type { DestinationDisabledData } from './disabled-event';

/**
 * The ports of webhook delivery (docs/webhooks.md): the engine (engine.ts) sends through a WebhookSender
 * (node http/https with a connect-time address guard: shared/adapters/webhooks/http-sender.ts), waits
 * through a Scheduler (timers, or a test's driven clock) and records every attempt in a DeliveryLog.
 */

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Local simulator only: the destination may resolve to loopback / private addresses. */
  allowPrivateAddresses: boolean;
}

export type WebhookResponse =
  | {
      kind: 'answered';
      status: number;
      /** Seconds from `Retry-After` (delta-seconds or an HTTP date), when the destination sent one. */
      retryAfterSeconds?: number;
      /** The first bytes of the body (bounded by the sender), not yet scrubbed. */
      excerpt: string;
    }
  | {
      /** No HTTP answer: refused address, DNS, connection, TLS or time-out. Never carries a secret. */
      kind: 'failed';
      error: string;
    };

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

/** Runs a task after a delay: timers in a process, a driven clock in tests. */
export interface Scheduler {
  after(delayMs: number, task: () => void): void;
}

export const timerScheduler: Scheduler = {
  after(delayMs, task) {
    // A pending retry must not keep a stopping process alive.
    setTimeout(task, delayMs).unref();
  },
};

export type AttemptOutcome = 'delivered' | 'retrying' | 'dead-letter' | 'destination-disabled';

/** One attempt of one event to one destination, as the delivery log keeps it. */
export interface DeliveryAttempt {
  eventId: string;
  /** The event's transaction (metadata.correlationId): the delivery log is read per transaction. */
  correlationId: string;
  destination: string;
  attempt: number;
  at: string;
  /** The HTTP status, or null when nothing answered. */
  status: number | null;
  latencyMs: number;
  outcome: AttemptOutcome;
  /** Scrubbed and bounded: the answer's first bytes or why nothing answered. */
  excerpt: string;
  /** When the next attempt is due (outcome `retrying`). */
  nextAttemptAt?: string;
  /** Set on a replay's attempts: who asked for it. */
  replayedBy?: string;
}

/** An event as the log keeps it for replay: the exact body that was signed. */
export interface DeliveredEvent {
  eventId: string;
  eventType: string;
  correlationId: string;
  occurredAt: string;
  body: string;
}

/** A transaction, or a time range (at most MAX_SELECTOR_DAYS), optionally of one event type. */
export interface DeliverySelector {
  correlationId?: string;
  eventType?: string;
  /** ISO times, inclusive, on the event's occurredAt. */
  from?: string;
  to?: string;
}

export interface ReplayAudit {
  destination: string;
  selector: DeliverySelector;
  count: number;
  actor: string;
  at: string;
}

export interface DeliveryLog {
  recordEvent(event: DeliveredEvent): Promise<void>;
  recordAttempt(attempt: DeliveryAttempt): Promise<void>;
  attempts(filter: {
    eventId?: string;
    destination?: string;
    correlationId?: string;
  }): Promise<DeliveryAttempt[]>;
  events(selector: DeliverySelector): Promise<DeliveredEvent[]>;
  recordReplay(audit: ReplayAudit): Promise<void>;
  /**
   * The dead-letter store: a destination's `dead-letter` attempts (past the schedule, or not sent while it
   * was disabled), oldest first, from `from` (ISO) on. Each names its event, replayable by its transaction.
   */
  deadLetters(destination: string, options?: { from?: string; limit?: number }): Promise<DeliveryAttempt[]>;
}

/**
 * Each destination's consecutive failures and whether it is disabled: the engine's memory in `npm start`,
 * an item of the relay table in AWS (shared/adapters/dynamodb/destination-states.ts), shared by every
 * concurrent delivery function.
 */
export interface DestinationStates {
  get(destination: string): Promise<{ disabled: boolean; reason?: string }>;
  /** A delivered attempt: the failures in a row start again from 0. */
  succeeded(destination: string): Promise<void>;
  /** A failed attempt: the failures in a row, this one included. */
  failed(destination: string): Promise<number>;
  /**
   * Disables the destination with its `DestinationDisabled` event (data.detail is the reason). True when
   * this call disabled it, false when it already was: the event is published once per disabling.
   */
  disable(destination: string, event: EventEnvelope<DestinationDisabledData>): Promise<boolean>;
}

/** The longest time range a replay selector may span (the log is read day by day). */
export const MAX_SELECTOR_DAYS = 31;
