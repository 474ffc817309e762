import type * as z from '../util/zod';
import type { DeliveryAnswer, DestinationIo } from './ports';

/** Where a destination is checked and delivered from: `npm start`, or the AWS delivery function (and synth). */
export type DestinationRuntime = 'local' | 'aws';

/** One attempt of one event, as every type receives it. */
export interface DeliveryRequest<S> {
  destination: string;
  settings: S;
  /** The exact body that was signed: the normalized event. */
  body: string;
  eventId: string;
  /** The transaction's id (the event's correlationId): a FIFO queue's message group. */
  correlationId: string;
  /** The Standard Webhooks `webhook-id`, `webhook-timestamp` and `webhook-signature` of this attempt. */
  signature: Record<string, string>;
  timeoutMs: number;
  runtime: DestinationRuntime;
}

/** A type's sender, built once per process from the ports (it may keep state: an STS credential cache). */
export interface Deliverer<S> {
  deliver(request: DeliveryRequest<S>): Promise<DeliveryAnswer>;
}

/**
 * A destination type (docs/webhooks.md#destination-types): its own config fields beside the common ones
 * (filter, signing secrets, rate, concurrency, retry schedule, disableAfterFailures), the checks of where
 * it runs, what it shows and what IAM it needs, and its sender. Adding one = a folder under
 * shared/destinations/ and a line in registry.ts.
 */
export interface DestinationTypeModule<S> {
  /** The config's `type` value. */
  id: string;
  /** Its own fields (strict, defaults applied), read from the destination's config next to the common ones. */
  settingsSchema: z.ZodMiniType<S, unknown>;
  /**
   * What is wrong with a parsed destination where it runs, each naming `destinations.<name>.<field>`: at
   * synth and when the delivery function or `npm start` loads the config. `io` is absent at synth.
   */
  problems(name: string, settings: S, where: { runtime: DestinationRuntime; io?: DestinationIo }): string[];
  /** Where it delivers, safe to show in the API and console (no credentials, no query). */
  shown(settings: S): string;
  /** The IAM roles the delivery function must be allowed to assume (the construct grants exactly these). */
  assumedRoles?(settings: S): string[];
  createDeliverer(io: DestinationIo): Deliverer<S>;
}
