import type { RelayConfig } from '../../shared/config/schema';
import type { InboundRequest } from '../../shared/http/types';

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

let requests = 0;

/** A JSON callback as the HTTP adapter hands it to receiveCallback: the worlds' one way to post one. */
export function jsonCallback(request: {
  method?: 'POST' | 'PUT';
  path: string;
  body: string;
  sourceIp: string;
  receivedAt: Date;
}): InboundRequest {
  return {
    requestId: `req-${++requests}`,
    method: request.method ?? 'POST',
    path: request.path,
    headers: { 'content-type': 'application/json' },
    query: {},
    rawBody: Buffer.from(request.body, 'utf8'),
    sourceIp: request.sourceIp,
    receivedAt: request.receivedAt,
  };
}
