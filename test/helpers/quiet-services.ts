import type { RelayConfig } from '../../shared/config/schema';

/**
 * What every in-memory world wires the same way around the use cases it drives: its config and store, a
 * clock it moves itself (`now()` in epoch ms), a silent log and an identity scrub. The worlds add their
 * own ingress buffer, metrics and scripted provider APIs (test/unit/app/*-world.ts).
 */
export function quietServices<S>(config: RelayConfig, store: S, now: () => number) {
  return {
    config,
    store,
    clock: { now: () => new Date(now()) },
    log: { debug() {}, info() {}, warn() {}, error() {} },
    scrub: (s: string) => s,
  };
}
