import { describe, expect, it } from 'vitest';
import {
  authorizedCall,
  CredentialsGate,
  requestToken,
  TokenCache,
} from '../../../../shared/providers/outbound-http';
import { json, type Reply, scriptedFetch, testDeps } from './support';

const isToken = (r: { url: string }) => r.url.endsWith('/token');
const isStatus = (r: { url: string }) => r.url.endsWith('/status');

/** One account's authorized calls against a scripted provider (token endpoint + a status endpoint). */
function setup(tokenReplies: Reply[], statusReplies: Reply[], cooldownMs = 60_000) {
  const fake = scriptedFetch([
    { match: isToken, replies: tokenReplies },
    { match: isStatus, replies: statusReplies },
  ]);
  const t = testDeps(fake.fetch);
  const gate = new CredentialsGate({
    provider: 'p',
    account: 'acc',
    now: t.deps.now,
    log: t.deps.log,
    cooldownMs,
  });
  const tokens = new TokenCache({
    now: t.deps.now,
    fetchToken: () =>
      requestToken(
        t.deps,
        { method: 'POST', url: 'https://p.test/token', headers: {} },
        { timeoutMs: 1000, what: 'token', fallbackExpiresInSeconds: 60 },
      ),
  });
  const call = () =>
    authorizedCall({
      deps: t.deps,
      gate,
      tokens,
      build: (token) => ({
        method: 'GET',
        url: 'https://p.test/status',
        headers: { authorization: `Bearer ${token}` },
      }),
      tokenRejected: (r) => r.status === 401,
      call: { timeoutMs: 1000, what: 'status' },
    });
  const tokenCalls = () => fake.requests.filter(isToken).length;
  const statusCalls = () => fake.requests.filter(isStatus);
  return { t, call, tokenCalls, statusCalls, tokens };
}

let n = 0;
const issued = () => json(200, { access_token: `tok-${++n}`, expires_in: '3599' });

describe('authorizedCall', () => {
  it('sends the cached bearer token and reuses it for the next call', async () => {
    // Prepare
    const s = setup([issued()], [json(200, { status: 'ok' })]);

    // Act
    const first = await s.call();
    const second = await s.call();

    // Assess
    expect(first.ok && second.ok).toBe(true);
    expect(s.tokenCalls()).toBe(1);
    const [a, b] = s.statusCalls();
    expect(a!.headers.authorization).toMatch(/^Bearer tok-\d+$/);
    expect(b!.headers.authorization).toBe(a!.headers.authorization);
  });

  it('refreshes the token once when the provider refuses it, and the call succeeds', async () => {
    // Prepare
    const s = setup(
      [issued(), issued()],
      [json(401, { error: 'token_expired' }), json(200, { status: 'ok' })],
    );

    // Act
    const result = await s.call();

    // Assess
    expect(result.ok && result.response.status).toBe(200);
    expect(s.tokenCalls()).toBe(2);
    const [a, b] = s.statusCalls();
    expect(b!.headers.authorization).not.toBe(a!.headers.authorization);
  });

  it('gives up with rejected when a fresh token is refused too: one refresh, no loop', async () => {
    // Prepare
    const s = setup([issued()], [json(401, { error: 'invalid_token' })]);

    // Act
    const result = await s.call();

    // Assess
    expect(result).toMatchObject({ ok: false, error: { error: 'rejected', httpStatus: 401 } });
    expect(s.tokenCalls()).toBe(2);
    expect(s.statusCalls()).toHaveLength(2);
  });

  it('answers credentials for refused credentials, warns once, and calls nobody during the cooldown', async () => {
    // Prepare
    const s = setup([json(401, { error: 'login_failed' })], [json(200, {})]);

    // Act
    const results = [await s.call(), await s.call(), await s.call()];

    // Assess
    for (const r of results) expect(r).toMatchObject({ ok: false, error: { error: 'credentials' } });
    expect(s.tokenCalls()).toBe(1);
    expect(s.statusCalls()).toHaveLength(0);
    expect(s.t.warnings).toHaveLength(1);
    expect(s.t.warnings[0]!.extra[0]).toMatchObject({ provider: 'p', account: 'acc', error: 'credentials' });
    expect(JSON.stringify(s.t.warnings)).toContain('login_failed');
  });

  it('asks again after the cooldown, without a second warning while the credentials stay refused', async () => {
    // Prepare
    const s = setup([json(400, { errorCode: '400.008.01' })], [json(200, {})], 60_000);
    await s.call();

    // Act
    s.t.advance(60_001);
    const after = await s.call();

    // Assess
    expect(after).toMatchObject({ ok: false, error: { error: 'credentials', retryAfterMs: 60_000 } });
    expect(s.tokenCalls()).toBe(2);
    expect(s.t.warnings).toHaveLength(1);
  });

  it('warns again for a new refusal once the credentials worked in between', async () => {
    // Prepare
    const s = setup([json(401, {}), issued(), json(401, {})], [json(401, {})], 1000);
    await s.call();
    s.t.advance(1001);
    // Act: a token is issued (the credentials work again), the status call's 401 asks for a new token,
    // and that request is refused: a new episode.
    const second = await s.call();

    // Assess
    expect(second).toMatchObject({ ok: false, error: { error: 'credentials' } });
    expect(s.t.warnings).toHaveLength(2);
    expect(s.t.infos.some((i) => i.message.includes('again'))).toBe(true);
  });

  it('does not hold the account when the token endpoint is merely down', async () => {
    // Prepare
    const s = setup([json(503, {}), json(503, {}), json(503, {}), issued()], [json(200, {})]);

    // Act
    const down = await s.call();
    const next = await s.call();

    // Assess
    expect(down).toMatchObject({ ok: false, error: { error: 'unavailable' } });
    expect(next.ok).toBe(true);
    expect(s.t.warnings).toHaveLength(0);
  });

  it('treats a 200 token answer without access_token as garbage', async () => {
    // Prepare
    const s = setup([json(200, { token: 'x' })], [json(200, {})]);

    // Act
    const result = await s.call();

    // Assess
    expect(result).toMatchObject({ ok: false, error: { error: 'garbage' } });
    expect(s.statusCalls()).toHaveLength(0);
  });
});
