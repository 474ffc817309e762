import {
  type DestinationState,
  type DestinationStateStore,
  initialDestinationState,
  type SecretRotation,
} from '../../app/delivery/ports';
import type { DestinationDisabledData } from '../../app/delivery/disabled-event';
import type { EventEnvelope } from '../../domain/event-envelope';

/** Destination states in a process's memory: tests, and `npm start` (a restart resumes every destination). */
export class MemoryDestinationStates implements DestinationStateStore {
  private readonly states = new Map<string, DestinationState>();

  private current(destination: string): DestinationState {
    let state = this.states.get(destination);
    if (!state) {
      state = initialDestinationState(destination);
      this.states.set(destination, state);
    }
    return state;
  }

  async get(destination: string): Promise<DestinationState> {
    return structuredClone(this.current(destination));
  }

  async recordAttempt(
    destination: string,
    attempt: { at: string; status: number | null; outcome: DestinationState['lastOutcome']; failed: boolean },
  ): Promise<number> {
    const state = this.current(destination);
    state.consecutiveFailures = attempt.failed ? state.consecutiveFailures + 1 : 0;
    Object.assign(state, {
      lastAttemptAt: attempt.at,
      lastStatus: attempt.status,
      lastOutcome: attempt.outcome,
    });
    return state.consecutiveFailures;
  }

  /** The events of each disabling, in order: what the DynamoDB adapter's outbox would publish. */
  readonly disabledEvents: EventEnvelope<DestinationDisabledData>[] = [];

  async disable(destination: string, event: EventEnvelope<DestinationDisabledData>): Promise<boolean> {
    const state = this.current(destination);
    if (state.disabled) return false;
    Object.assign(state, {
      disabled: true,
      disabledReason: event.data.detail,
      disabledAt: event.data.disabledAt,
    });
    this.disabledEvents.push(event);
    return true;
  }

  async pause(destination: string, actor: string, at: string): Promise<DestinationState> {
    Object.assign(this.current(destination), { paused: true, pausedBy: actor, pausedAt: at });
    return this.get(destination);
  }

  async resume(destination: string): Promise<DestinationState> {
    const { rotation, lastAttemptAt, lastStatus, lastOutcome } = this.current(destination);
    this.states.set(destination, {
      ...initialDestinationState(destination),
      ...(rotation ? { rotation } : {}),
      ...(lastAttemptAt ? { lastAttemptAt, lastStatus, lastOutcome } : {}),
    });
    return this.get(destination);
  }

  async rotate(destination: string, rotation: SecretRotation): Promise<DestinationState> {
    this.current(destination).rotation = rotation;
    return this.get(destination);
  }
}
