import type { BadgeApi, BadgeApiSource, FetchLike, SecretReader } from '../../app/ports';
import type { BadgeShopConfig } from '../../config/schema';
import { BadgeReadError, parseBadge, parseBadgeList } from '../../domain/badges';
import { untilAborted } from '../../util/deadline';

/** An answer bigger than this is refused (`too-large`), read streamed: a shop cannot exhaust the poller. */
const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface WordPressBadgeApiDeps {
  /** The badge API is called through it; the global fetch by default. */
  fetchImpl?: FetchLike;
  /** Reads a shop's `secretId` (Secrets Manager's shared reader); a shop with one needs it. */
  readSecret?: SecretReader;
}

/**
 * The badge API of a WordPress shop running the badges plugin (`/<restPrefix>/cpbw/v1/badges`, docs/badges.md):
 * GET only, no redirects, bounded bodies, the shop's auth (inline or from its secret).
 */
export function wordPressBadgeApi(deps: WordPressBadgeApiDeps = {}): BadgeApiSource {
  return async (shop, call) => {
    const auth = await resolveAuth(deps, shop, call.secrets, call.budget);
    return badgeApi(deps, shop, auth.header, call.count, call.budget);
  };
}

/** The per-call timeout, bounded by the cycle's budget. */
function callSignal(timeoutMs: number, budget: AbortSignal | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return budget ? AbortSignal.any([timeout, budget]) : timeout;
}

/** The body as text, read streamed and refused (`too-large`) past MAX_BODY_BYTES. */
async function boundedText(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new BadgeReadError('too-large', `answer over ${MAX_BODY_BYTES} bytes`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * The shop's Authorization header. Every credential value it meets (the config's auth values, the
 * secret's values, the header and its encoded part) is pushed to `secrets` as soon as it is known, so
 * that a failure at any step can still be scrubbed of them.
 */
async function resolveAuth(
  services: WordPressBadgeApiDeps,
  shop: BadgeShopConfig,
  secrets: string[],
  budget: AbortSignal | undefined,
): Promise<{ header?: string }> {
  let auth: Record<string, unknown> = { ...shop.auth };
  for (const [name, item] of Object.entries(auth))
    if (name !== 'type' && typeof item === 'string') secrets.push(item);
  if (shop.secretId) {
    const read = services.readSecret;
    if (!read)
      throw new BadgeReadError('auth', `secret "${shop.secretId}" cannot be read: no secret reader is wired`);
    let value: unknown;
    try {
      value = JSON.parse(
        await untilAborted(
          read(shop.secretId),
          callSignal(shop.timeoutMs, budget),
          () => new BadgeReadError('timeout', `secret "${shop.secretId}": no answer in time`),
        ),
      );
    } catch (error) {
      if (error instanceof BadgeReadError) throw error;
      const why =
        error instanceof SyntaxError ? 'is not valid JSON' : `cannot be read: ${(error as Error).message}`;
      throw new BadgeReadError('auth', `secret "${shop.secretId}" ${why}`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value))
      throw new BadgeReadError(
        'auth',
        `secret "${shop.secretId}" must hold a JSON object such as {"token": "…"}`,
      );
    for (const item of Object.values(value)) if (typeof item === 'string') secrets.push(item);
    auth = { ...auth, ...(value as Record<string, unknown>), type: shop.auth.type };
  }
  const text = (name: string) =>
    typeof auth[name] === 'string' && auth[name] !== '' ? (auth[name] as string) : undefined;
  if (auth.type === 'basic') {
    const [username, password] = [text('username'), text('password')];
    if (!username || !password)
      throw new BadgeReadError('auth', 'basic auth needs a username and a password');
    const encoded = Buffer.from(`${username}:${password}`).toString('base64');
    secrets.push(encoded, `Basic ${encoded}`);
    return { header: `Basic ${encoded}` };
  }
  if (auth.type === 'bearer') {
    const token = text('token');
    if (!token) throw new BadgeReadError('auth', 'bearer auth needs a token');
    secrets.push(`Bearer ${token}`);
    return { header: `Bearer ${token}` };
  }
  return {};
}

/**
 * The error text of a badge API answer (`{code, message, data:{status}}`), or its body. Whole: it is cut
 * only after the shop's credentials are scrubbed from it (a cut first kept 32 of a token's 34 characters).
 */
function errorText(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { code?: unknown; message?: unknown };
    if (parsed && (typeof parsed.code === 'string' || typeof parsed.message === 'string'))
      return `HTTP ${status} ${String(parsed.code ?? '')}: ${String(parsed.message ?? '')}`;
  } catch {
    // not JSON: fall through
  }
  return `HTTP ${status}${body ? `: ${body}` : ''}`;
}

/** The `code` of a WordPress REST error body, or undefined. */
function wordPressCode(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { code?: unknown } | null;
    return parsed && typeof parsed.code === 'string' ? parsed.code : undefined;
  } catch {
    return undefined;
  }
}

function badgeApi(
  services: WordPressBadgeApiDeps,
  shop: BadgeShopConfig,
  authHeader: string | undefined,
  count: () => void,
  budget: AbortSignal | undefined,
): BadgeApi {
  const fetchImpl = services.fetchImpl ?? fetch;
  const base = `${shop.baseUrl.replace(/\/+$/, '')}/${shop.restPrefix}/cpbw/v1/badges`;
  const call = async (url: string): Promise<{ status: number; body: string; headers: Headers }> => {
    count();
    const headers: Record<string, string> = { accept: 'application/json' };
    if (authHeader) headers.authorization = authHeader;
    try {
      const response = await fetchImpl(url, {
        method: 'GET',
        headers,
        signal: callSignal(shop.timeoutMs, budget),
        redirect: 'error',
      });
      return { status: response.status, body: await boundedText(response), headers: response.headers };
    } catch (error) {
      if (error instanceof BadgeReadError) throw error;
      const name = (error as Error).name;
      if (budget?.aborted) throw new BadgeReadError('timeout', "the cycle's time budget ran out");
      if (name === 'TimeoutError' || name === 'AbortError')
        throw new BadgeReadError('timeout', `no answer within ${shop.timeoutMs} ms`);
      throw new BadgeReadError('network', (error as Error).message);
    }
  };
  const json = (body: string): unknown => {
    try {
      return JSON.parse(body);
    } catch {
      throw new BadgeReadError('garbage', `not JSON: ${body}`);
    }
  };
  return {
    async list() {
      const { status, body, headers } = await call(base);
      if (status !== 200) throw new BadgeReadError('http', errorText(status, body));
      const pages = Number(headers.get('x-wp-totalpages') ?? '1');
      // One page is all the relay reads: a partial list would look like deletions to confirm.
      if (pages > 1) throw new BadgeReadError('http', `the list has ${pages} pages; paging is not supported`);
      const parsed = parseBadgeList(json(body));
      if (!parsed.ok) throw new BadgeReadError('garbage', `not a list of badges: ${parsed.error}`);
      return { badges: parsed.value, invalidDates: parsed.invalidDates, refused: parsed.refused ?? [] };
    },
    async get(id) {
      const { status, body } = await call(`${base}/${encodeURIComponent(id)}`);
      if (status === 404) {
        // Only the badge's own 404 (a WordPress error code of the badge route) confirms a deletion; a
        // route-level 404 (the plugin gone, a wrong prefix) or a proxy's page says nothing about the badge.
        if (wordPressCode(body) !== undefined && wordPressCode(body) !== 'rest_no_route') return null;
        throw new BadgeReadError('http', `not a badge's own 404: ${errorText(status, body)}`);
      }
      if (status !== 200) throw new BadgeReadError('http', errorText(status, body));
      const parsed = parseBadge(json(body));
      if (!parsed.ok || parsed.value.id !== id)
        throw new BadgeReadError(
          'garbage',
          `not badge ${id}: ${parsed.ok ? `id ${parsed.value.id}` : parsed.error}`,
        );
      return parsed.value;
    },
  };
}
