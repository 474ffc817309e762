/**
 * The destination routes' answers (docs/management-api.md#webhook-destinations), typed once for the router
 * and the console (types only: nothing of the server ends up in the browser bundle).
 */
import type { DeliveryAttempt } from './ports';

export interface DestinationView {
  id: string;
  /** Scheme, host and path only: a query string or user info may carry a credential, never shown. */
  url: string;
  filter: { eventTypes: string[]; providers: string[]; accounts: string[] };
  ratePerSecond: number;
  concurrency: number;
  state: 'active' | 'paused' | 'disabled';
  pausedBy: string | null;
  pausedAt: string | null;
  disabledReason: string | null;
  disabledAt: string | null;
  failureStreak: number;
  lastAttempt: { at: string; status: number | null; outcome: string } | null;
  /** A secret rotation: who, when, and until when the replaced secret still signs. Never a secret. */
  rotation: { rotatedAt: string; rotatedBy: string; windowEndsAt: string; bothSigning: boolean } | null;
}

export interface DestinationsAnswer {
  destinations: DestinationView[];
}

export interface DestinationDeliveriesAnswer {
  destination: string;
  from: string;
  to: string;
  attempts: DeliveryAttempt[];
  next?: string;
}

export interface TransactionDeliveriesAnswer {
  correlationId: string;
  deliveries: Array<{
    eventId: string;
    eventType: string;
    occurredAt: string;
    destination: string;
    attempts: DeliveryAttempt[];
  }>;
}

export interface ReplayAnswer {
  destination: string;
  dryRun: boolean;
  count: number;
  selector: { correlationId?: string; eventType?: string; from?: string; to?: string };
}
