import type { StatusApiDeps } from '../types';
import { type CallOptions, type CallResult, callJson } from './call';
import type { CredentialsGate } from './credentials-gate';
import type { TokenCache, TokenOutcome } from './token-cache';
import { clip, type HttpRequest, type HttpResponse, isRecord, statusError, textOf } from './types';
import { parseExpiresIn } from './token-cache';

/** What a token endpoint's refusal looks like in a detail: its error code, never the request. */
function refusalCode(json: unknown): string | undefined {
  if (!isRecord(json)) return undefined;
  return (
    textOf(json.errorCode) ??
    textOf(json.error) ??
    textOf(json.code) ??
    (isRecord(json.status) ? textOf(json.status.response_code) : undefined)
  );
}

/**
 * Asks a token endpoint. 400/401/403 are a refusal of the credentials (`credentials`); 5xx, timeouts and
 * throttling are transient (retried, then the error as is); a 200 without `access_token` is `garbage`.
 */
export async function requestToken(
  deps: Pick<StatusApiDeps, 'fetch' | 'sleep' | 'now'>,
  request: HttpRequest,
  options: CallOptions & { fallbackExpiresInSeconds: number },
): Promise<TokenOutcome> {
  const result = await callJson(deps, request, options);
  if (!result.ok) return result;
  const { status, json } = result.response;
  if (status === 400 || status === 401 || status === 403) {
    const code = refusalCode(json);
    return {
      ok: false,
      error: statusError(
        'credentials',
        `${options.what}: credentials refused (HTTP ${status}${code ? ` ${clip(code, 40)}` : ''})`,
        { httpStatus: status },
      ),
    };
  }
  if (status !== 200 || !isRecord(json) || typeof json.access_token !== 'string' || !json.access_token) {
    return {
      ok: false,
      error: statusError(
        status === 200 ? 'garbage' : 'unavailable',
        `${options.what}: HTTP ${status} without an access token`,
        { httpStatus: status },
      ),
    };
  }
  return {
    ok: true,
    token: json.access_token,
    expiresInSeconds: parseExpiresIn(json.expires_in, options.fallbackExpiresInSeconds),
  };
}

export interface AuthorizedCallContext {
  deps: Pick<StatusApiDeps, 'fetch' | 'sleep' | 'now'>;
  gate: CredentialsGate;
  tokens: TokenCache;
  /** The request, with this bearer token. */
  build(token: string): HttpRequest;
  /** The provider refused the token itself (401, Daraja 400.003.01, an expired-token code). */
  tokenRejected(response: HttpResponse): boolean;
  call: CallOptions;
}

async function token(ctx: AuthorizedCallContext): Promise<TokenOutcome> {
  const outcome = await ctx.tokens.get();
  if (outcome.ok) ctx.gate.accept();
  else if (outcome.error.error === 'credentials') return { ok: false, error: ctx.gate.refuse(outcome.error) };
  return outcome;
}

/**
 * A call with the account's bearer token. Refused credentials hold the account (the gate answers without
 * calling the provider). A refused token is dropped and replaced once, and the call made once more; a
 * fresh token refused again is `rejected` (and holds the account too): never a loop.
 */
export async function authorizedCall(ctx: AuthorizedCallContext): Promise<CallResult> {
  const blocked = ctx.gate.blocked();
  if (blocked) return { ok: false, error: blocked, attempts: 0 };
  const first = await token(ctx);
  if (!first.ok) return { ok: false, error: first.error, attempts: 0 };
  const result = await callJson(ctx.deps, ctx.build(first.token), ctx.call);
  if (!result.ok || !ctx.tokenRejected(result.response)) return result;

  ctx.tokens.invalidate(first.token);
  const second = await token(ctx);
  if (!second.ok) return { ok: false, error: second.error, attempts: result.attempts };
  const again = await callJson(ctx.deps, ctx.build(second.token), ctx.call);
  if (!again.ok || !ctx.tokenRejected(again.response)) {
    return again.ok ? { ...again, attempts: result.attempts + again.attempts } : again;
  }
  ctx.tokens.invalidate(second.token);
  const error = ctx.gate.refuse(
    statusError(
      'rejected',
      `${ctx.call.what}: a freshly issued token was refused too (HTTP ${again.response.status}); check the account's API access`,
      { httpStatus: again.response.status },
    ),
  );
  return { ok: false, error, attempts: result.attempts + again.attempts };
}
