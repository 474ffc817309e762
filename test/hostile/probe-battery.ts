/**
 * The probe battery (docs/security.md#the-probe-battery): every route the relay serves, taken from the
 * tables that declare them (the management route table, each provider's routes, the local server's own
 * paths), probed over HTTP as an anonymous sender, with forged tokens and as each role: wrong methods,
 * HEAD and OPTIONS; wrong, missing and doubled content types; bodies that are not a JSON object, nested
 * 10,000 deep, just over the size limit, carrying `__proto__`/`constructor`/`prototype`; hostile strings
 * (control characters, NUL, lone surrogates, RTL overrides, 10 KB, markup, formulas) in every body
 * field, path parameter and query parameter; traversal and encoded slashes in path parameters; numbers
 * a parser chokes on. A route added to a table is probed without a line here.
 *
 * Every answer: below 500; an error in the house's shape (`{ error: { code, message } }`); no stack
 * trace, internal path, secret or full phone number in the answer or in any log line; every refusal
 * recorded (the quarantine for a provider's route, the audit log for a management one) where the
 * target counts its records. Used by test/unit/http/route-probes.test.ts (the memory store, every
 * probe) and test/hostile/route-probes.test.ts (DynamoDB Local: what only a real table refuses).
 */
import { Agent, request } from 'node:http';
import { parseConfig } from '../../shared/config/load';
import type { ManagementRoute } from '../../shared/config/management-routes';
import { PROVIDERS } from '../../shared/providers/registry';

export const SECRETS = {
  momoPath: 'momo-probe-path-secret-9f3k2',
  darajaPath: 'daraja-probe-path-secret-7h1q',
  airtelKey: 'airtel-probe-callback-key-4x8z',
  viewer: 'probe-viewer-token-0123456789',
  operator: 'probe-operator-token-0123456789',
  admin: 'probe-admin-token-0123456789ab',
  shared: 'probe-shared-token-0123456789',
  webhook: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
};
/** A customer's number, sent where free text goes: never answered or logged in full. */
export const MSISDN = '256772123456';
export const REFERENCE = '0b6c7d4e-1f2a-4b3c-9d8e-7f6a5b4c3d2e';
const DAY = '2026-11-29';

/** The relay's configuration, raw (the fast world parses it; a test relay on DynamoDB Local takes it). */
export const PROBE_CONFIG = {
  management: {
    auth: 'bearer',
    bearerToken: SECRETS.shared,
    tokens: [
      { name: 'vic', role: 'viewer', token: SECRETS.viewer },
      { name: 'ana', role: 'operator', token: SECRETS.operator },
      { name: 'bo', role: 'admin', token: SECRETS.admin },
    ],
    resolveLimits: { 'momo/demo': '500' },
  },
  accounts: {
    momo: { demo: { pathSecret: SECRETS.momoPath, currency: 'EUR' } },
    airtel: { ug: { callbackKey: SECRETS.airtelKey } },
    daraja: { ke: { pathSecret: SECRETS.darajaPath, shortCode: '600638', sourceIp: { mode: 'off' } } },
  },
  destinations: { shop: { url: 'https://shop.example.com/hooks', signingSecrets: [SECRETS.webhook] } },
};
const config = parseConfig(PROBE_CONFIG);

/** The account each provider's routes are probed on, with the path secret its URL carries. */
export const ACCOUNTS: Record<string, { account: string; secret?: string }> = {
  momo: { account: 'demo', secret: SECRETS.momoPath },
  airtel: { account: 'ug' },
  daraja: { account: 'ke', secret: SECRETS.darajaPath },
};

const TOKENS = {
  anonymous: undefined,
  forged: 'Bearer probe-forged-token-0000000000',
  basic: `Basic ${Buffer.from(`admin:${SECRETS.admin}x`).toString('base64')}`,
  empty: 'Bearer ',
  viewer: `Bearer ${SECRETS.viewer}`,
  operator: `Bearer ${SECRETS.operator}`,
  admin: `Bearer ${SECRETS.admin}`,
} as const;
type Who = keyof typeof TOKENS;
const ROLE_RANK = { viewer: 0, operator: 1, admin: 2 } as const;

/** Strings no field should choke on. */
const HOSTILE_STRINGS: Record<string, string> = {
  control: 'a\u0001\u0007\u001b[31m\r\nb',
  nul: 'a\u0000b',
  loneSurrogate: 'a\ud800b',
  rtl: 'abc\u202edcba\u2066x',
  long: 'x'.repeat(10_240),
  markup: '<img src=x onerror=alert(1)></script><script>alert(2)</script>',
  javascriptUrl: 'javascript:alert(document.domain)',
  formula: '=HYPERLINK("http://evil.example","x")',
  proto: '__proto__',
  msisdn: `call ${MSISDN} now`,
};

/** The hostile strings a header can carry (Node's client refuses control characters in one). */
const ACTOR_STRINGS = ['rtl', 'long', 'markup', 'javascriptUrl', 'formula', 'proto', 'msisdn'];

/** Path parameter values: traversal, encoded slashes, double encoding, NUL, bad escapes, length. */
const HOSTILE_SEGMENTS: Record<string, string> = {
  encodedSlash: 'a%2Fb',
  dotDotSlash: '..%2F..%2Fetc%2Fpasswd',
  doubleEncoded: '..%252F..%252F',
  dotDot: '..',
  nul: 'a%00b',
  loneSurrogate: 'a%ED%A0%80b',
  badEscape: '%zz',
  rtl: 'a%E2%80%AEb',
  markup: encodeURIComponent('<img src=x onerror=alert(1)>'),
  proto: '__proto__',
  constructor: 'constructor',
  long: 'y'.repeat(3000),
  msisdn: MSISDN,
};

/** Numbers as text a JSON parser or a decimal library chokes on (raw JSON, not quoted unless shown). */
const HOSTILE_NUMBERS = [
  '1e309',
  '-0',
  '"NaN"',
  '"Infinity"',
  '-5',
  '"-5"',
  '1'.repeat(40),
  '"1e309"',
  '0.1e-400',
];

/**
 * A partner's own identifiers and free JSON, kept as sent (docs/management-api.md: only a member named
 * like a phone field is masked): a number in them is the partner's, not one the relay may rewrite.
 */
const KEPT_AS_SENT = new Set(['externalId', 'metadata']);

/** Bodies that are not what any route takes. */
function hostileBodies(limit: number): Record<string, string> {
  return {
    malformed: '{"a":',
    array: '[1,2]',
    string: '"x"',
    null: 'null',
    number: '42',
    empty: '',
    deep: `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
    deepObject: `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`,
    oversize: JSON.stringify({ pad: 'z'.repeat(limit) }),
    proto: '{"__proto__":{"admin":true},"constructor":{"prototype":{"polluted":1}},"prototype":1}',
    bom: '\ufeff{}',
  };
}

/** A query value percent-encoded as UTF-8, a lone surrogate as its (ill-formed) 3 bytes. */
function queryValue(value: string): string {
  return value.slice(0, 2000).split('\ud800').map(encodeURIComponent).join('%ED%A0%80');
}

export interface Probe {
  family: string;
  what: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The route's own refusals are recorded; the local server's (431, 413) and reads' answers are not. */
  recorded?: 'quarantine' | 'audit' | 'none';
}

interface Answer {
  status: number;
  text: string;
  headers: Record<string, string>;
}

/** Node's own client on one kept-alive connection: fetch cost the battery twice the CPU. */
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** What is probed: the relay's URL, what it has recorded so far (absent: not checked), its log lines. */
export interface ProbeTarget {
  url: string;
  records?: () => number;
  lines: readonly string[];
}

export function send(on: Pick<ProbeTarget, 'url'>, probe: Probe): Promise<Answer> {
  const body =
    probe.body !== undefined && probe.method !== 'GET' && probe.method !== 'HEAD' ? probe.body : '';
  const { port } = new URL(on.url);
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: '127.0.0.1',
        port,
        agent,
        method: probe.method,
        path: probe.path,
        headers: { ...probe.headers, ...(body ? { 'content-length': Buffer.byteLength(body) } : {}) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers)) headers[name] = String(value);
          resolve({
            status: response.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            headers,
          });
        });
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

// ---------------------------------------------------------------------------------------------------
// What must hold

const FORBIDDEN_TEXT: Array<[string, RegExp]> = [
  ['a stack trace', /\n\s+at [^\n]+:\d+:\d+|\bat (async )?[\w.<>]+ \((node:|file:|\/)/],
  ['an internal path', /\/work\/|node_modules|\/shared\/[\w/-]+\.ts|file:\/\//],
  ['a full phone number', new RegExp(MSISDN)],
  ...Object.entries(SECRETS).map(([name, value]): [string, RegExp] => [
    `the ${name} secret`,
    new RegExp(value.replace(/[+/=]/g, (c) => `\\${c}`)),
  ]),
];

function leaks(text: string): string[] {
  return FORBIDDEN_TEXT.filter(([, pattern]) => pattern.test(text)).map(([name]) => name);
}

/** What is wrong with one answer (empty: nothing). */
async function problemsOf(
  on: ProbeTarget,
  probe: Probe,
  answer: Answer,
  recordsBefore: number,
): Promise<string[]> {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`answered ${answer.status}`);
  const echoed = `${answer.text}\n${JSON.stringify(answer.headers)}`;
  // A read answers the key it was asked for: a path parameter that looks like a number is the caller's own.
  const ownKey = answer.status < 400 && probe.path.split('?')[0]!.includes(MSISDN);
  for (const leak of leaks(echoed))
    if (!(ownKey && leak === 'a full phone number')) problems.push(`answer holds ${leak}`);
  const refused = answer.status >= 400 || 'x-relay-error' in answer.headers;
  if (answer.status >= 400 && probe.method !== 'HEAD') {
    let code: unknown;
    try {
      const body = JSON.parse(answer.text) as { error?: { code?: unknown; message?: unknown } };
      code = body.error?.code;
      if (typeof code !== 'string' || typeof body.error?.message !== 'string') throw new Error('shape');
    } catch {
      problems.push(`error not in the house shape: ${answer.text.slice(0, 80)}`);
    }
    const isRead = code === 'TRANSACTION_NOT_FOUND' || code === 'RECEIPT_NOT_FOUND';
    if (refused && probe.recorded !== 'none' && !(isRead && probe.method === 'GET')) {
      if (on.records && on.records() === recordsBefore)
        problems.push(`refusal ${answer.status} ${String(code)} not recorded`);
    }
  }
  if (answer.status < 400 && answer.status !== 200 && answer.status !== 201 && answer.status !== 202)
    problems.push(`answered ${answer.status}`);
  return problems;
}

/** Sends every probe one after another (a refusal is told from the next by the records it adds). */
export async function runProbes(on: ProbeTarget, probes: readonly Probe[]): Promise<string[]> {
  const violations: string[] = [];
  const linesBefore = on.lines.length;
  for (const probe of probes) {
    const before = on.records?.() ?? 0;
    const answer = await send(on, probe);
    for (const problem of await problemsOf(on, probe, answer, before))
      violations.push(
        `${probe.family} ${probe.method} ${probe.path.slice(0, 120)} [${probe.what}]: ${problem}`,
      );
  }
  for (const line of on.lines.slice(linesBefore)) {
    for (const leak of leaks(line)) violations.push(`a log line holds ${leak}: ${line.slice(0, 200)}`);
    if (/^error /.test(line)) violations.push(`an error was logged: ${line.slice(0, 200)}`);
  }
  // One line per kind of defect and route family, with how many probes showed it.
  const grouped = new Map<string, number>();
  for (const v of violations) grouped.set(v, (grouped.get(v) ?? 0) + 1);
  return [...grouped].map(([v, n]) => (n > 1 ? `${v} (×${n})` : v));
}

// ---------------------------------------------------------------------------------------------------
// The routes, from their tables

const PARAMETER_VALUES: Record<string, string> = {
  provider: 'momo',
  account: 'demo',
  reference: REFERENCE,
  receiptId: 'r-1',
  id: 'shop',
  day: DAY,
};

function managementPath(route: ManagementRoute, override: Record<string, string> = {}): string {
  return route.path.replace(
    /\{(\w+)\}/g,
    (_, name: string) => override[name] ?? PARAMETER_VALUES[name] ?? 'x',
  );
}

/** A body each POST route would take (its fields are what the probes replace one by one). */
export const GOOD_BODIES: Partial<Record<ManagementRoute['useCase'], Record<string, unknown>>> = {
  registerTransaction: {
    provider: 'momo',
    account: 'demo',
    kind: 'requesttopay',
    reference: REFERENCE,
    amount: '100',
    currency: 'EUR',
    msisdn: MSISDN,
    externalId: 'order-1',
    metadata: { note: 'x' },
  },
  resolveByHand: { status: 'FAILED', note: 'customer called' },
  acceptQuarantined: { note: 'checked by phone' },
  dismissQuarantined: { note: 'junk' },
  approve: { note: 'ok' },
  reject: { note: 'no' },
  replayDeliveries: { dryRun: true, from: `${DAY}T00:00:00Z`, to: `${DAY}T23:00:00Z` },
  rotateSecret: { secretRef: 'env:PROBE_SECRET' },
  closeStatementDay: { note: 'closed' },
};

const QUERY_NAMES = [
  'from',
  'to',
  'cursor',
  'format',
  'provider',
  'account',
  'status',
  'q',
  'limit',
  'reason',
];

/** A request as `who` with a JSON body. */
export function asWho(who: Who, extra: Record<string, string> = {}): Record<string, string> {
  const token = TOKENS[who];
  return { ...(token ? { authorization: token } : {}), 'x-relay-actor': 'probe', ...extra };
}

export function managementProbes(route: ManagementRoute): Probe[] {
  const family = `${route.method} ${route.path}`;
  const path = managementPath(route);
  const probes: Probe[] = [];
  const add = (what: string, probe: Omit<Probe, 'family' | 'what'>) =>
    probes.push({ family, what, recorded: 'audit', ...probe });
  const json = { 'content-type': 'application/json' };
  const good = JSON.stringify(GOOD_BODIES[route.useCase] ?? {});
  // Who may call it: every token, the roles below the route's refused.
  for (const who of Object.keys(TOKENS) as Who[])
    add(`as ${who}`, { method: route.method, path, headers: asWho(who, json), body: good });
  add('two authorization headers', {
    method: route.method,
    path,
    headers: { authorization: `${TOKENS.viewer}, ${TOKENS.admin}`, ...json },
    body: good,
  });
  // The person the shared token names (X-Relay-Actor) is free text the audit log and approvals show.
  // A header carries bytes: the hostile strings a client can send as one, as their UTF-8 bytes.
  for (const name of ACTOR_STRINGS)
    add(`actor ${name}`, {
      method: route.method,
      path,
      headers: {
        authorization: `Bearer ${SECRETS.shared}`,
        'x-relay-actor': Buffer.from(HOSTILE_STRINGS[name]!.slice(0, 2000), 'utf8').toString('latin1'),
        ...json,
      },
      body: good,
    });
  for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'].filter(
    (m) => m !== route.method,
  ))
    add(`method ${method}`, { method, path, headers: asWho('admin', json), body: good });
  for (const [name, value] of Object.entries(HOSTILE_SEGMENTS))
    for (const param of route.path.match(/\{(\w+)\}/g) ?? [])
      add(`${param} ${name}`, {
        method: route.method,
        path: managementPath(route, { [param.slice(1, -1)]: value }),
        headers: asWho('admin', json),
        body: good,
      });
  // Each parameter name with each hostile string once, across the routes (a full product costs seconds).
  const strings = Object.entries(HOSTILE_STRINGS);
  for (const [i, query] of QUERY_NAMES.entries()) {
    const [name, value] = strings[(i + route.path.length) % strings.length]!;
    add(`?${query} ${name}`, {
      method: route.method,
      path: `${path}?${query}=${queryValue(value)}`,
      headers: asWho('admin', json),
      body: good,
    });
  }
  add('repeated query', {
    method: route.method,
    path: `${path}?${Array.from({ length: 200 }, (_, i) => `from=${i}&format=csv`).join('&')}`.slice(0, 8000),
    headers: asWho('admin'),
  });
  if (route.method === 'POST') probes.push(...bodyProbes(family, route, path));
  return probes;
}

function bodyProbes(family: string, route: ManagementRoute, path: string): Probe[] {
  const probes: Probe[] = [];
  const add = (what: string, body: string, type: string | undefined = 'application/json') =>
    probes.push({
      family,
      what,
      method: 'POST',
      path,
      headers: asWho('admin', type === undefined ? {} : { 'content-type': type }),
      body,
      recorded: 'audit',
    });
  for (const [name, body] of Object.entries(hostileBodies(config.limits.maxBodyBytes)))
    add(`body ${name}`, body);
  const good = GOOD_BODIES[route.useCase] ?? {};
  for (const type of [
    undefined,
    'text/html',
    'application/json, text/html',
    'application/json; charset=utf-16',
  ])
    add(`content-type ${type ?? 'missing'}`, JSON.stringify(good), type);
  for (const field of Object.keys(good)) {
    for (const [name, value] of Object.entries(HOSTILE_STRINGS))
      if (!(name === 'msisdn' && KEPT_AS_SENT.has(field)))
        add(`${field} ${name}`, JSON.stringify({ ...good, [field]: value }));
    if (field === 'metadata')
      add(
        'metadata phone members',
        JSON.stringify({ ...good, metadata: { msisdn: MSISDN, partyId: MSISDN } }),
      );
    // Numbers where a number goes (an amount): elsewhere a number is one more wrong shape.
    for (const number of /amount|seconds/i.test(field) ? HOSTILE_NUMBERS : [])
      add(`${field} ${number}`, JSON.stringify({ ...good, [field]: '@@' }).replace('"@@"', number));
    for (const shape of ['null', '[]', '{}', 'true'])
      add(`${field} ${shape}`, JSON.stringify({ ...good, [field]: '@@' }).replace('"@@"', shape));
  }
  return probes;
}

/** The URL of a provider route, its path parameters filled in. */
function providerPath(provider: string, routePath: string, fill: (name: string) => string): string {
  const { account, secret } = ACCOUNTS[provider]!;
  const tail = routePath.replace(/\{(\w+)\}/g, (_, name: string) => fill(name));
  return `/v1/${provider}/${account}${secret ? `/${secret}` : ''}/${tail}`;
}

const ROUTE_PARAMETER_VALUES: Record<string, string> = { kind: 'requesttopay', referenceId: REFERENCE };

export function callbackProbes(): Probe[] {
  const probes: Probe[] = [];
  for (const provider of PROVIDERS) {
    for (const route of provider.routes) {
      const family = `${provider.id} ${route.name}`;
      const path = providerPath(provider.id, route.path, (n) => ROUTE_PARAMETER_VALUES[n] ?? 'x');
      const add = (what: string, probe: Omit<Probe, 'family' | 'what'>) =>
        probes.push({ family, what, recorded: 'quarantine', ...probe });
      const method = route.methods[0]!;
      const json = { 'content-type': 'application/json' };
      for (const [name, body] of Object.entries(hostileBodies(config.limits.maxBodyBytes)))
        add(`body ${name}`, { method, path, headers: json, body });
      for (const type of ['text/html', 'application/json, text/html', 'multipart/form-data; boundary=x'])
        add(`content-type ${type}`, { method, path, headers: { 'content-type': type }, body: '{}' });
      for (const other of ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'])
        if (!route.methods.includes(other as never))
          add(`method ${other}`, { method: other, path, headers: json });
      for (const [name, value] of Object.entries(HOSTILE_SEGMENTS)) {
        for (const param of route.path.match(/\{(\w+)\}/g) ?? [])
          add(`${param} ${name}`, {
            method,
            path: providerPath(provider.id, route.path, (n) =>
              `{${n}}` === param ? value : (ROUTE_PARAMETER_VALUES[n] ?? 'x'),
            ),
            headers: json,
            body: '{}',
          });
        if (route === provider.routes[0])
          add(`account ${name}`, {
            method,
            path: `/v1/${provider.id}/${value}/x`,
            headers: json,
            body: '{}',
          });
      }
      const strings = Object.entries(HOSTILE_STRINGS);
      for (const [name, value] of strings.filter((_, i) => i % 3 === provider.routes.indexOf(route) % 3))
        add(`query ${name}`, {
          method,
          path: `${path}?a=${queryValue(value)}&a=2`,
          headers: json,
          body: `{"x":${JSON.stringify(value)}}`,
        });
      add('authorization forged', {
        method,
        path,
        headers: { ...json, authorization: TOKENS.forged },
        body: '{}',
      });
    }
  }
  return probes;
}

/** The local server's own paths: health, the event stream, the console, and no route at all. */
export function serverProbes(): Probe[] {
  const probes: Probe[] = [];
  const add = (what: string, probe: Omit<Probe, 'family' | 'what'>) =>
    probes.push({ family: 'server', what, recorded: 'quarantine', ...probe });
  for (const path of ['/health', '/health/live', '/health/ready'])
    for (const method of ['POST', 'HEAD', 'OPTIONS', 'DELETE'])
      add(`${method} ${path}`, { method, path, headers: { 'content-type': 'application/json' }, body: '{}' });
  for (const [who, token] of Object.entries(TOKENS).filter(([w]) => !(w in ROLE_RANK)))
    add(`event stream ${who}`, {
      method: 'GET',
      path: `/v1/events/stream${token ? `?access_token=${encodeURIComponent(token.replace(/^\w+ /, ''))}` : ''}`,
      recorded: 'audit',
    });
  for (const [name, value] of Object.entries(HOSTILE_SEGMENTS))
    add(`path ${name}`, { method: 'GET', path: `/v1/${value}` });
  // API Gateway's payload quota (10 MB), which the local server stands in for: refused before the relay runs.
  add("body over the API's quota", {
    method: 'PUT',
    path: `/v1/momo/demo/${SECRETS.momoPath}/requesttopay/${REFERENCE}`,
    headers: { 'content-type': 'application/json' },
    body: 'x'.repeat(10 * 1024 * 1024 + 1),
    recorded: 'none',
  });
  add('request line over the quota', {
    method: 'GET',
    path: `/v1/transactions?q=${'q'.repeat(11_000)}`,
    headers: asWho('admin'),
    recorded: 'none',
  });
  for (const path of [
    '//',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/v1/../v1/me',
    '/v1/me%00',
    '/V1/ME',
    '/v1/me/..%2F..%2Fx',
  ])
    add(path, { method: 'GET', path, headers: asWho('admin') });
  return probes;
}

/** Registers the transaction the routes under /v1/transactions/{…} find (their probes reach its use cases). */
export async function registerProbeTransaction(on: Pick<ProbeTarget, 'url'>): Promise<number> {
  const answer = await send(on, {
    family: 'arrange',
    what: 'register',
    method: 'POST',
    path: '/v1/transactions',
    headers: asWho('admin', { 'content-type': 'application/json' }),
    body: JSON.stringify({ ...GOOD_BODIES.registerTransaction, msisdn: undefined }),
  });
  return answer.status;
}

/** Closes the kept-alive connection (after a file's probes). */
export function closeProbes(): void {
  agent.destroy();
}
