import type { EventEnvelope } from '../../domain/event-envelope';
import type { DestinationDisabledData } from './disabled-event';

/**
 * The ports of webhook delivery (docs/webhooks.md): the engine (engine.ts) sends through each destination
 * type's sender (shared/destinations/registry.ts; https: a WebhookSender, node http/https with a
 * connect-time address guard, shared/adapters/webhooks/http-sender.ts), waits
 * through a Scheduler (timers, or a test's driven clock) and records every attempt in a DeliveryLog.
 */

// The senders' ports belong to the destination types (shared/destinations/), re-exported for the adapters.
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../../destinations/ports';
export type { WebhookRequest, WebhookResponse, WebhookSender };

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

// The log's attempt shape is an API answer too (the console reads it): defined with the answers.
import type { AttemptOutcome, DeliveryAttempt } from '../management-answers';
export type { AttemptOutcome, DeliveryAttempt };

/** Every AttemptOutcome (checked against the type both ways), for validating a filter. */
export const ATTEMPT_OUTCOMES = [
  'delivered',
  'retrying',
  'dead-letter',
  'destination-disabled',
] as const satisfies readonly AttemptOutcome[];
const _allOutcomesListed: AttemptOutcome extends (typeof ATTEMPT_OUTCOMES)[number] ? true : never = true;
void _allOutcomesListed;

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
    correlationId: string;
  }): Promise<DeliveryAttempt[]>;
  /** One destination's attempts, newest first, one bounded page (GET /v1/destinations/{id}/deliveries). */
  attemptsOf(destination: string, query: DestinationAttemptQuery): Promise<DeliveryAttemptPage>;
  events(selector: DeliverySelector): Promise<DeliveredEvent[]>;
  recordReplay(audit: ReplayAudit): Promise<void>;
  /**
   * The dead-letter store: a destination's `dead-letter` attempts (past the schedule, or not sent while it
   * was disabled), oldest first, from `from` (ISO) on. Each names its event, replayable by its transaction.
   */
  deadLetters(destination: string, options?: { from?: string; limit?: number }): Promise<DeliveryAttempt[]>;
}

/** The longest time range a replay selector may span (the log is read day by day). */
export const MAX_SELECTOR_DAYS = 31;

/** A page of one destination's attempts: `from`/`to` ISO times (at most MAX_SELECTOR_DAYS apart). */
export interface DestinationAttemptQuery {
  from: string;
  to: string;
  outcome?: AttemptOutcome;
  limit: number;
  /** Opaque, from the previous page's `next`. */
  cursor?: string;
}

export interface DeliveryAttemptPage {
  attempts: DeliveryAttempt[];
  /** Present when older attempts remain in the range. */
  next?: string;
}

/**
 * A secret rotation (POST /v1/destinations/{id}/rotate): the new secret, by reference, signs first; the
 * one it replaces still signs until `windowEndsAt`, so receivers holding either secret verify.
 */
export interface SecretRotation {
  secretRef: string;
  /** The reference it replaced; absent: the config's own current secret. */
  previousSecretRef?: string;
  rotatedAt: string;
  rotatedBy: string;
  windowEndsAt: string;
}

/**
 * What operators and the engine change about a destination at run time, kept apart from the config in
 * one store every delivery path reads (npm start's engine and the AWS delivery function): paused by a
 * person, disabled by the engine (410 or N failures in a row), the failure streak, the last attempt and
 * the secret rotation. Never a secret value: rotations hold references.
 */
export interface DestinationState {
  destination: string;
  paused: boolean;
  pausedBy?: string;
  pausedAt?: string;
  disabled: boolean;
  /** Why it was disabled: "410 Gone" or the consecutive failures. */
  disabledReason?: string;
  disabledAt?: string;
  consecutiveFailures: number;
  lastAttemptAt?: string;
  lastStatus?: number | null;
  lastOutcome?: AttemptOutcome;
  rotation?: SecretRotation;
}

export function initialDestinationState(destination: string): DestinationState {
  return { destination, paused: false, disabled: false, consecutiveFailures: 0 };
}

/**
 * The one store of destination states (shared/adapters/dynamodb/destination-state-store.ts, item
 * `DST#<destination>`): written by the management API (pause, resume, rotation) and by every delivery
 * path (the attempt's outcome, disabling), read before every attempt by `attemptDelivery`, in `npm start`
 * and in the AWS delivery function alike.
 */
export interface DestinationStateStore {
  get(destination: string): Promise<DestinationState>;
  /** Notes an attempt: a success resets the streak, a failure adds one; answers the new streak. */
  recordAttempt(
    destination: string,
    attempt: { at: string; status: number | null; outcome: AttemptOutcome; failed: boolean },
  ): Promise<number>;
  /**
   * Disables it with its `DestinationDisabled` event (data.detail is the reason, data.disabledAt the
   * time). True only for the call that did, so the operator is told once per disabling: the DynamoDB
   * adapter writes the event into the item's outbox in the same conditional write (published by the
   * outbox publisher in AWS and under `npm start` alike).
   */
  disable(destination: string, event: EventEnvelope<DestinationDisabledData>): Promise<boolean>;
  pause(destination: string, actor: string, at: string): Promise<DestinationState>;
  /** Clears a pause and a disabling, and the failure streak: a person decided the endpoint works again. */
  resume(destination: string): Promise<DestinationState>;
  rotate(destination: string, rotation: SecretRotation): Promise<DestinationState>;
}
