import type { StatusApiDeps } from '../../../../shared/providers/types';

export interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export type Reply =
  | { status: number; body?: unknown; raw?: string; headers?: Record<string, string> }
  | { network: string }
  | { hang: true };

/**
 * A scripted fetch: each request gets the next reply of the route whose predicate matches, or the
 * route's last reply once its script is used up. Requests are recorded (headers lower-cased).
 */
export function scriptedFetch(routes: { match: (r: Recorded) => boolean; replies: Reply[] }[]) {
  const requests: Recorded[] = [];
  const used = new Map<number, number>();
  const fetchImpl = (async (input: string | URL, init?: RequestInit) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries((init?.headers as Record<string, string>) ?? {}))
      headers[k.toLowerCase()] = v;
    const recorded: Recorded = {
      method: init?.method ?? 'GET',
      url: String(input),
      headers,
      body: typeof init?.body === 'string' ? init.body : undefined,
    };
    requests.push(recorded);
    const index = routes.findIndex((r) => r.match(recorded));
    if (index < 0) throw new Error(`no scripted reply for ${recorded.method} ${recorded.url}`);
    const route = routes[index]!;
    const n = used.get(index) ?? 0;
    used.set(index, n + 1);
    const reply = route.replies[Math.min(n, route.replies.length - 1)]!;
    if ('network' in reply) throw new TypeError('fetch failed', { cause: { code: reply.network } });
    if ('hang' in reply) {
      return new Promise<Response>((_, reject) => {
        init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      });
    }
    const text = reply.raw ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
    return new Response(text, {
      status: reply.status,
      headers: { 'content-type': 'application/json', ...reply.headers },
    });
  }) as typeof fetch;
  return { fetch: fetchImpl, requests };
}

/** Deps with a manual clock: sleep advances it (and records the wait), log lines are kept. */
export function testDeps(fetchImpl: typeof fetch, start = Date.parse('2026-11-23T10:00:00Z')) {
  let now = start;
  const sleeps: number[] = [];
  const warnings: { message: string; extra: Record<string, unknown>[] }[] = [];
  const infos: { message: string; extra: Record<string, unknown>[] }[] = [];
  const deps: StatusApiDeps = {
    fetch: fetchImpl,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    log: {
      warn: (message, ...extra) => warnings.push({ message, extra }),
      info: (message, ...extra) => infos.push({ message, extra }),
    },
  };
  return {
    deps,
    sleeps,
    warnings,
    infos,
    advance: (ms: number) => {
      now += ms;
    },
    now: () => now,
  };
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({
  status,
  body,
  ...(headers ? { headers } : {}),
});
