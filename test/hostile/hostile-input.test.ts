/**
 * Hostile input, black box: a generated corpus plus fast-check properties over every route the relay
 * serves (MoMo with and without a path secret, Airtel with hash enforcement, the seven Daraja routes
 * with and without a path secret, from an allow-listed and a foreign address, the management API,
 * unknown paths, /health), varying bodies, encodings, paths, headers and methods.
 *
 * For every request:
 *   (1) the status is below 500;
 *   (2) every refusal (a 4xx, or a 200 carrying `x-relay-error`, i.e. Daraja's C2B00016 rejection of bad
 *       validation input) has a quarantine entry, or, refused by the management API, an audit log entry
 *       (issue 30: management refusals are not quarantined). A management 404 TRANSACTION_NOT_FOUND is an answer,
 *       and a 431 comes from Node's HTTP parser before the relay runs: neither needs one;
 *   (3) no secret (path secrets, Airtel callback key, SecurityCredential, Password, bearer token) is in
 *       the answer, in any quarantine entry, or in any published event.
 *
 * Each test collects every violation and fails once, listing them grouped by kind and route family
 * with an example request, so one run shows every defect rather than the first.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AIRTEL_KEY,
  airtelBody,
  auditedSince,
  awaitRecord,
  BEARER,
  DARAJA_ROUTES,
  DARAJA_SECRET,
  type DarajaRoute,
  darajaBody,
  deepJson,
  MARKER_HEADER,
  MOMO_SECRET,
  momoSuccessBody,
  newMarker,
  PASSWORD,
  quarantinedByMarker,
  type RawResponse,
  rawRequest,
  SAFARICOM_IP,
  SECURITY_CREDENTIAL,
  secretsIn,
  startHostileRelay,
  STRANGER_IP,
  uuid,
} from '../helpers/hostile';
import type { TestRelay } from '../helpers/relay';

/**
 * Bounded runs, so the file stays well under a minute. HOSTILE_FULL=1 runs the whole cross product
 * (every body on every route) and four times the property runs.
 */
const FULL = process.env.HOSTILE_FULL === '1';
const RUNS = FULL ? { bodies: 500, paths: 600, headers: 240 } : { bodies: 120, paths: 120, headers: 50 };

let relay: TestRelay;

beforeAll(async () => {
  relay = await startHostileRelay();
});

afterAll(async () => {
  await relay?.stop();
});

// ---------------------------------------------------------------------------------------------
// Probing and checking
// ---------------------------------------------------------------------------------------------

interface Probe {
  /** Route family, for grouping violations (e.g. "daraja/open c2b/validation"). */
  family: string;
  method: string;
  path: string;
  body?: string | Buffer;
  /** Content-Type; undefined → application/json when there is a body; null → none. */
  contentType?: string | null;
  /** X-Forwarded-For; undefined → the Safaricom address; null → none. */
  ip?: string | null;
  /** Send the management bearer token. */
  auth?: boolean;
  headers?: [string, string][];
  /** What was varied, for the report. */
  variant: string;
}

interface Violation {
  kind: string;
  family: string;
  example: string;
}

/** Events already checked (flush() returns everything published since the relay started). */
let eventsSeen = 0;

/** A refusal whose quarantine entry (or audit entry) is still to be found. */
interface PendingRefusal {
  probe: Probe;
  summary: string;
  marker: string;
  status: number;
  sentAt: string;
}

class Checker {
  readonly violations: Violation[] = [];
  private readonly pending: PendingRefusal[] = [];
  requests = 0;

  private add(kind: string, probe: Probe, detail: string): void {
    const path = probe.path.length > 160 ? `${probe.path.slice(0, 160)}…(${probe.path.length})` : probe.path;
    this.violations.push({
      kind,
      family: probe.family,
      example: `[${probe.variant}] ${probe.method} ${path} → ${detail}`,
    });
  }

  async probe(probe: Probe): Promise<RawResponse | undefined> {
    const marker = newMarker();
    const headers: [string, string][] = [[MARKER_HEADER, marker]];
    if (probe.ip !== null) headers.push(['x-forwarded-for', probe.ip ?? SAFARICOM_IP]);
    if (probe.body !== undefined && probe.contentType !== null)
      headers.push(['content-type', probe.contentType ?? 'application/json']);
    if (probe.auth) headers.push(['authorization', `Bearer ${BEARER}`]);
    headers.push(...(probe.headers ?? []));
    this.requests++;
    const sentAt = new Date().toISOString();
    let res: RawResponse;
    try {
      res = await rawRequest(relay.url, {
        method: probe.method,
        path: probe.path,
        headers,
        body: probe.body,
      });
    } catch (error) {
      this.add('no answer', probe, (error as Error).message);
      return undefined;
    }
    const summary = `${res.status} ${res.text.slice(0, 200)}`;
    if (res.status >= 500) this.add(`status ${res.status}`, probe, summary);
    const leakedInAnswer = secretsIn(res.text);
    if (leakedInAnswer.length)
      this.add('secret in the answer', probe, `${leakedInAnswer.join(', ')}: ${summary}`);
    const notFoundAnswer = res.status === 404 && res.json?.error?.code === 'TRANSACTION_NOT_FOUND';
    const refused =
      (res.status >= 400 && res.status < 500 && res.status !== 431 && !notFoundAnswer) ||
      res.headers['x-relay-error'] !== undefined;
    if (refused) this.pending.push({ probe, summary, marker, status: res.status, sentAt });
    return res;
  }

  private checkRecord(probe: Probe, record: Record<string, unknown>): void {
    const leaked = secretsIn(JSON.stringify(record));
    if (leaked.length)
      this.add(
        'secret in quarantine',
        probe,
        `${leaked.join(', ')} (${String(record.errorCode)}, path ${String(record.path).slice(0, 120)})`,
      );
  }

  /**
   * Every refusal's record, read in one pass over the quarantine (and the audit log) written since the
   * first refusal, polled together (RECORD_WAIT_MS) because a refusal waits at most 1 s for its
   * quarantine write, which a loaded machine's DynamoDB Local can outlast. One pass instead of a read
   * per refusal: those reads were most of the DynamoDB Local CPU this file cost. A real defect still
   * lists every missing record.
   */
  private async settlePending(): Promise<void> {
    let left = this.pending.splice(0);
    const usedAudit = new Set<unknown>();
    await awaitRecord(async () => {
      if (!left.length) return true;
      const since = left.reduce((min, p) => (p.sentAt < min ? p.sentAt : min), left[0]!.sentAt);
      const quarantined = await quarantinedByMarker(relay, new Set(left.map((p) => p.marker)), since);
      for (const { probe, marker } of left) {
        const record = quarantined.get(marker);
        if (record) this.checkRecord(probe, record);
      }
      left = left.filter((p) => !quarantined.has(p.marker));
      if (left.length) left = this.matchAudited(left, await auditedSince(relay, since), usedAudit);
      return left.length ? undefined : true;
    });
    for (const { probe, summary } of left) this.add('refusal not quarantined', probe, summary);
  }

  /**
   * Refused management requests matched one to one with audit entries of their method and status written
   * at or after they were sent (an audit entry keeps no headers to mark), earliest first, so each refusal
   * needs an entry of its own. The refusals left unmatched.
   */
  private matchAudited(
    refusals: PendingRefusal[],
    audit: Record<string, unknown>[],
    used: Set<unknown>,
  ): PendingRefusal[] {
    const entries = [...audit].sort((a, b) => String(a.at).localeCompare(String(b.at)));
    const left: PendingRefusal[] = [];
    for (const refusal of [...refusals].sort((a, b) => a.sentAt.localeCompare(b.sentAt))) {
      const entry = entries.find(
        (e) =>
          !used.has(e.id) &&
          String(e.at) >= refusal.sentAt &&
          e.httpStatus === refusal.status &&
          e.method === refusal.probe.method.slice(0, 16),
      );
      if (!entry) left.push(refusal);
      else {
        used.add(entry.id);
        this.checkRecord(refusal.probe, entry);
      }
    }
    return left;
  }

  /** Publishes what was written and checks every new event for secrets. */
  async checkEvents(): Promise<void> {
    const events = await relay.flush();
    for (const event of events.slice(eventsSeen)) {
      const leaked = secretsIn(JSON.stringify(event));
      if (leaked.length) {
        const data = event.data as Record<string, unknown>;
        this.violations.push({
          kind: 'secret in an event',
          family: `${String(data.provider)}/${String(data.account)}`,
          example: `${event.metadata.type} ${leaked.join(', ')}: route ${String(data.route)}, path ${String(data.path).slice(0, 120)}, message ${String(data.message).slice(0, 160)}`,
        });
      }
    }
    eventsSeen = events.length;
  }

  /** One line per (kind, family): count and the first example. Empty when all is well. */
  summary(): string[] {
    const groups = new Map<string, { count: number; example: string }>();
    for (const v of this.violations) {
      const key = `${v.kind} @ ${v.family}`;
      const group = groups.get(key);
      if (group) group.count++;
      else groups.set(key, { count: 1, example: v.example });
    }
    return [...groups].map(([key, g]) => `${key} ×${g.count}: ${g.example}`).sort();
  }

  async finish(): Promise<void> {
    await this.settlePending();
    await this.checkEvents();
    expect(this.summary(), `${this.requests} requests`).toEqual([]);
  }
}

// ---------------------------------------------------------------------------------------------
// Targets: every route, each with a plausible body
// ---------------------------------------------------------------------------------------------

interface Target {
  family: string;
  method: string;
  path: () => string;
  body: () => Record<string, unknown>;
  ip?: string;
  auth?: boolean;
  /** Airtel: sign whatever bytes are sent (header-hex recipe), so bad bodies get past the hash. */
  signRaw?: boolean;
}

const momoPath = (kind = 'requesttopay', account = 'open') =>
  account === 'guarded'
    ? `/v1/momo/guarded/${MOMO_SECRET}/${kind}/${uuid()}`
    : `/v1/momo/${account}/${kind}/${uuid()}`;

const registration = () => ({
  provider: 'momo',
  account: 'open',
  kind: 'requesttopay',
  reference: uuid(),
  amount: '100',
  currency: 'EUR',
  externalId: `order-${uuid().slice(0, 6)}`,
  metadata: { orderId: 8841, note: 'x' },
});

const darajaTarget = (route: DarajaRoute, account: 'open' | 'guarded', ip = SAFARICOM_IP): Target => ({
  family: `daraja/${account}${ip === SAFARICOM_IP ? '' : ' foreign-ip'} ${route}`,
  method: 'POST',
  path: () =>
    account === 'guarded' ? `/v1/daraja/guarded/${DARAJA_SECRET}/${route}` : `/v1/daraja/open/${route}`,
  body: () => darajaBody(route),
  ip,
});

const TARGETS: Target[] = [
  { family: 'momo/open PUT', method: 'PUT', path: () => momoPath(), body: () => momoSuccessBody() },
  {
    family: 'momo/open POST',
    method: 'POST',
    path: () => momoPath('transfer'),
    body: () => momoSuccessBody(),
  },
  {
    family: 'momo/guarded PUT',
    method: 'PUT',
    path: () => momoPath('requesttopay', 'guarded'),
    body: () => momoSuccessBody(),
  },
  { family: 'airtel/demo', method: 'POST', path: () => '/v1/airtel/demo/callback', body: () => airtelBody() },
  {
    family: 'airtel/demo signed',
    method: 'POST',
    path: () => '/v1/airtel/demo/callback',
    body: () => airtelBody(),
    signRaw: true,
  },
  ...DARAJA_ROUTES.map((route) => darajaTarget(route, 'open')),
  ...DARAJA_ROUTES.map((route) => darajaTarget(route, 'guarded')),
  ...DARAJA_ROUTES.map((route) => darajaTarget(route, 'guarded', STRANGER_IP)),
  {
    family: 'management POST',
    method: 'POST',
    path: () => '/v1/transactions',
    body: registration,
    auth: true,
  },
  {
    family: 'management GET',
    method: 'GET',
    path: () => `/v1/transactions/momo/open/${uuid()}`,
    body: registration,
    auth: true,
  },
  {
    family: 'unknown path',
    method: 'POST',
    path: () => `/v1/nope/${uuid()}/x`,
    body: () => momoSuccessBody(),
  },
  { family: 'health POST', method: 'POST', path: () => '/health', body: () => momoSuccessBody() },
];

const family = (name: string) => TARGETS.find((t) => t.family === name)!;
const families = (test: (name: string) => boolean) => TARGETS.filter((t) => test(t.family));

/**
 * The routes the i-th corpus body is sent to. Every route gets every body in HOSTILE_FULL mode; by
 * default the routes that share a handler take turns (MoMo PUT/POST, the Daraja routes of each
 * account, unknown path / health), while C2B validation (its own answer format), both Airtel modes,
 * the guarded MoMo account and the management API get every body.
 */
function corpusTargets(i: number): Target[] {
  if (FULL) return TARGETS;
  const turn = <T>(list: T[]) => list[i % list.length]!;
  return [
    turn([family('momo/open PUT'), family('momo/open POST')]),
    family('momo/guarded PUT'),
    family('airtel/demo'),
    family('airtel/demo signed'),
    family('daraja/open c2b/validation'),
    turn(families((f) => f.startsWith('daraja/open ') && !f.endsWith('validation'))),
    turn(families((f) => f.startsWith('daraja/guarded ') && !f.includes('foreign'))),
    turn(families((f) => f.includes('foreign'))),
    family('management POST'),
    turn([family('unknown path'), family('health POST')]),
  ];
}

/** One target per route family, for the dimensions that do not depend on the route's body. */
const ONE_PER_FAMILY = TARGETS.filter((t) =>
  /^(momo\/open PUT|momo\/guarded PUT|airtel\/demo|airtel\/demo signed|daraja\/open stk|daraja\/open c2b\/validation|daraja\/open b2c\/timeout|daraja\/guarded stk|daraja\/guarded foreign-ip c2b\/validation|management POST|management GET|unknown path)$/.test(
    t.family,
  ),
);

const hmacHex = (bytes: Buffer) => createHmac('sha256', AIRTEL_KEY).update(bytes).digest('hex');

function probeOf(
  target: Target,
  body: string | Buffer | undefined,
  variant: string,
  extra: Partial<Probe> = {},
): Probe {
  const headers: [string, string][] = [];
  if (target.signRaw && body !== undefined) headers.push(['x-airtel-signature', hmacHex(Buffer.from(body))]);
  return {
    family: target.family,
    method: target.method,
    path: target.path(),
    body,
    ip: target.ip,
    auth: target.auth,
    variant,
    ...extra,
    headers: [...headers, ...(extra.headers ?? [])],
  };
}

// ---------------------------------------------------------------------------------------------
// Body corpus
// ---------------------------------------------------------------------------------------------

/** Members whose values are the recognisable Daraja credentials: kept as they are by every mutation. */
const CREDENTIALS = new Set(['SecurityCredential', 'Password']);

function mapValues(value: unknown, f: (v: unknown, key: string) => unknown, key = ''): unknown {
  if (CREDENTIALS.has(key)) return value;
  if (Array.isArray(value)) return value.map((v) => mapValues(v, f, key));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapValues(v, f, k)]));
  return f(value, key);
}

/** JSON text with `extra` (raw JSON members) appended to every object. */
function withMembersEverywhere(value: unknown, extra: string): string {
  if (Array.isArray(value)) return `[${value.map((v) => withMembersEverywhere(v, extra)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(
      ([k, v]) => `${JSON.stringify(k)}:${withMembersEverywhere(v, extra)}`,
    );
    return `{${[...members, extra].join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Replaces a string placeholder in JSON text with raw bytes or text. */
function replacePlaceholder(text: string, placeholder: string, by: Buffer): Buffer {
  const quoted = JSON.stringify(placeholder);
  const parts = text.split(quoted);
  const out: Buffer[] = [];
  parts.forEach((part, i) => {
    if (i > 0) out.push(by);
    out.push(Buffer.from(part, 'utf8'));
  });
  return Buffer.concat(out);
}

const HOLE = '\u0001HOLE\u0001';
const withMember = (base: Record<string, unknown>, member: string) =>
  `${JSON.stringify(base).slice(0, -1)},${member}}`;
const ID_KEY = /(^id$|ID$|Id$|^reference$|Number$)/;

const SPECIAL_KEYS =
  '"constructor":{"prototype":{"polluted":true}},"__proto__":{"polluted":true},"prototype":{"x":1},"":"empty","toString":"x","hasOwnProperty":1,"valueOf":{}';

const UNICODE_SOUP = 'é😀\u202Eevil\u200B\u0000\uFEFF𝕏ﷺ';

type Mutation = readonly [
  name: string,
  mutate: (base: Record<string, unknown>) => string | Buffer | undefined,
];

const BODY_MUTATIONS: Mutation[] = [
  ['no body', () => undefined],
  ['empty body', () => ''],
  ['whitespace body', () => ' \r\n\t '],
  ['null', () => 'null'],
  ['array', () => '[]'],
  ['string', () => '"SUCCESSFUL"'],
  ['number', () => '42'],
  ['true', () => 'true'],
  ['empty object', () => '{}'],
  ['10,000 nested arrays', () => deepJson(10_000, 'array')],
  ['10,000 nested objects', () => deepJson(10_000, 'object')],
  ['member nested 7,000 objects deep', (b) => withMember(b, `"deep":${deepJson(7000, 'object')}`)],
  ['member nested 10,000 arrays deep', (b) => withMember(b, `"deep":${deepJson(10_000, 'array')}`)],
  ['member nested 40 objects deep', (b) => withMember(b, `"deep":${deepJson(40, 'object')}`)],
  ['200 KB string member', (b) => withMember(b, `"huge":"${'x'.repeat(200_000)}"`)],
  ['over the 256 KB limit', (b) => withMember(b, `"huge":"${'x'.repeat(300_000)}"`)],
  [
    'ids over 2 KB',
    (b) => JSON.stringify(mapValues(b, (v, k) => (ID_KEY.test(k) ? `X${'9'.repeat(2100)}` : v))),
  ],
  ['special keys at the top level', (b) => withMember(b, SPECIAL_KEYS)],
  ['special keys in every object', (b) => withMembersEverywhere(b, SPECIAL_KEYS)],
  [
    'special names as Key/Name values',
    (b) =>
      JSON.stringify(
        mapValues(b, (v, k) =>
          k === 'Key' || k === 'Name'
            ? ['constructor', '__proto__', '', 'toString'][String(v).length % 4]
            : v,
        ),
      ),
  ],
  [
    'duplicate keys',
    (b) => {
      const text = JSON.stringify(b);
      const dupes = Object.keys(b).map((k) => `${JSON.stringify(k)}:null`);
      return `{${dupes.join(',')},${text.slice(1, -1)},${Object.keys(b)
        .map((k) => `${JSON.stringify(k)}:"FAILED"`)
        .join(',')}}`;
    },
  ],
  ...(
    ['1e309', '-0', '1e-400', '123456789012345678901234567890.123456789', '"NaN"', '"-1e309"'] as const
  ).map((literal): Mutation => [
    `numbers as ${literal}`,
    (b) =>
      JSON.stringify(
        mapValues(b, (v) =>
          typeof v === 'number' || (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) ? HOLE : v,
        ),
      ).replaceAll(JSON.stringify(HOLE), literal),
  ]),
  [
    'unicode strings',
    (b) => JSON.stringify(mapValues(b, (v) => (typeof v === 'string' ? `${v}${UNICODE_SOUP}` : v))),
  ],
  [
    'lone surrogates',
    (b) => JSON.stringify(mapValues(b, (v) => (typeof v === 'string' ? `\ud800${v}\udfff` : v))),
  ],
  ['lone surrogates in keys', (b) => withMember(b, '"\\ud800":"x","k\\udc00":{"\\udbff":1}')],
  ['NUL in keys and values', (b) => withMember(b, '"\\u0000":"\\u0000","a\\u0000b":1')],
  [
    'invalid UTF-8 bytes in strings',
    (b) =>
      replacePlaceholder(
        JSON.stringify(mapValues(b, (v) => (typeof v === 'string' ? HOLE : v))),
        HOLE,
        Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0x41]),
      ),
  ],
  ['byte order mark', (b) => `\uFEFF${JSON.stringify(b)}`],
  ['UTF-16LE encoded', (b) => Buffer.from(JSON.stringify(b), 'utf16le')],
  ['trailing garbage', (b) => `${JSON.stringify(b)} trailing`],
  ['two documents', (b) => `${JSON.stringify(b)}${JSON.stringify(b)}`],
  ['truncated', (b) => JSON.stringify(b).slice(0, -1)],
  ['single quotes', (b) => JSON.stringify(b).replaceAll('"', "'")],
  ['every value null', (b) => JSON.stringify(mapValues(b, () => null))],
  [
    'types swapped',
    (b) =>
      JSON.stringify(
        mapValues(b, (v) =>
          typeof v === 'string' ? 7 : typeof v === 'number' ? String(v) : v === null ? {} : [v],
        ),
      ),
  ],
  ['objects become arrays', (b) => JSON.stringify(Object.values(b))],
];

// ---------------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------------

const specialString = fc.constantFrom(
  'constructor',
  '__proto__',
  'prototype',
  '',
  'toString',
  'SUCCESSFUL',
  'TS',
  'TF',
  'TA',
  '0',
  'NaN',
  '1e309',
  '-0',
  '\ud800',
  '\udfff',
  '\u0000',
  '\uFEFF',
  '😀',
  'x'.repeat(2100),
  '../../etc/passwd',
  '%zz',
  '{"a":1}',
);

const jsonLeaf = fc.oneof(
  specialString,
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 12 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);

const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    jsonLeaf,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(specialString, fc.string({ maxLength: 10 })), tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** JSON text of `value`, with `__proto__` keys kept as members (JSON.stringify keeps own properties). */
const asJson = (value: unknown) => JSON.stringify(value) ?? 'null';

/** Sets `replacement` at a random place inside `base` (chosen by `pick`). */
function replaceSomewhere(base: unknown, pick: number, replacement: unknown): unknown {
  const slots: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach((item, i) => (slots.push({ parent: v, key: i }), walk(item)));
    else if (v !== null && typeof v === 'object')
      for (const [k, item] of Object.entries(v)) {
        if (CREDENTIALS.has(k)) continue;
        slots.push({ parent: v as Record<string, unknown>, key: k });
        walk(item);
      }
  };
  const copy = structuredClone(base);
  walk(copy);
  if (!slots.length) return replacement;
  const slot = slots[pick % slots.length]!;
  (slot.parent as Record<string | number, unknown>)[slot.key] = replacement;
  return copy;
}

const PATH_SEGMENTS = [
  'v1',
  'V1',
  'momo',
  'MOMO',
  'airtel',
  'daraja',
  'transactions',
  'open',
  'guarded',
  'demo',
  'nobody',
  MOMO_SECRET,
  DARAJA_SECRET,
  'requesttopay',
  'transfer',
  'callback',
  'stk',
  'c2b',
  'validation',
  'confirmation',
  'b2c',
  'result',
  'timeout',
  'status',
  'health',
  '',
  '.',
  '..',
  '%2e%2e',
  '%zz',
  '%',
  '%0',
  '%00',
  '%ff',
  '%c0%af',
  '%2F',
  '%252F',
  'constructor',
  '__proto__',
  'x'.repeat(3000),
];

const segment = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...PATH_SEGMENTS) },
  { weight: 1, arbitrary: fc.constant('UUID') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }).map(encodeURIComponent) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@-]{0,12}$/) },
);

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'] as const;

/** Printable ASCII only: Node's client refuses anything else in a header value. */
const headerValue = fc.oneof(
  fc.stringMatching(/^[\x20-\x7e]{0,40}$/),
  fc.constantFrom(
    '',
    ' ',
    'application/json',
    'text/xml',
    'gzip',
    SAFARICOM_IP,
    STRANGER_IP,
    '::1',
    'a'.repeat(4000),
  ),
);
const headerName = fc.oneof(
  fc.constantFrom(
    'content-type',
    'content-encoding',
    'x-forwarded-for',
    'authorization',
    'cookie',
    'x-airtel-signature',
    'x-hash',
    'x-signature',
    'accept',
    'x-request-id',
    'x-custom',
    'transfer-encoding-x',
    'expect-x',
  ),
  fc.stringMatching(/^x-[a-z0-9-]{1,20}$/),
);

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe('hostile input on every route: never a 5xx, every refusal quarantined, no secret out', () => {
  it('survives the generated body corpus on every route', async () => {
    const checker = new Checker();
    for (const [i, [name, mutate]] of BODY_MUTATIONS.entries()) {
      for (const target of corpusTargets(i))
        await checker.probe(probeOf(target, mutate(target.body()), name));
    }
    await checker.finish();
  }, 300_000);

  it('survives content types, charsets and content encodings on every route', async () => {
    const checker = new Checker();
    const contentTypes: (string | null)[] = [
      null,
      '',
      'application/json; charset=utf-8',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'application/json;;;',
      'application/json, text/plain',
      'APPLICATION/JSON',
      'application/vnd.api+json',
      'application/problem+json',
      'text/json',
      'text/plain',
      'text/xml',
      'application/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=xyz',
      'application/octet-stream',
      '*/*',
      'application/json\t',
      ' application/json ',
    ];
    for (const target of ONE_PER_FAMILY) {
      for (const contentType of contentTypes) {
        const body = JSON.stringify(target.body());
        await checker.probe(
          probeOf(target, body, `content-type ${JSON.stringify(contentType)}`, { contentType }),
        );
      }
      for (const encoding of ['gzip', 'br', 'deflate', 'identity, gzip']) {
        const body = JSON.stringify(target.body());
        await checker.probe(
          probeOf(target, body, `content-encoding ${encoding} without compression`, {
            headers: [['content-encoding', encoding]],
          }),
        );
      }
      const formBody = new URLSearchParams({ json: JSON.stringify(target.body()) }).toString();
      await checker.probe(
        probeOf(target, formBody, 'form-encoded body', { contentType: 'application/x-www-form-urlencoded' }),
      );
    }
    await checker.finish();
  }, 300_000);

  it('survives every method on every route', async () => {
    const checker = new Checker();
    const extraRoutes: Target[] = [
      { family: 'health', method: 'GET', path: () => '/health', body: () => ({}) },
      {
        family: 'management collection',
        method: 'POST',
        path: () => '/v1/transactions',
        body: registration,
        auth: true,
      },
      {
        family: 'management collection no token',
        method: 'POST',
        path: () => '/v1/transactions',
        body: registration,
      },
      {
        family: 'management item no token',
        method: 'GET',
        path: () => `/v1/transactions/momo/open/${uuid()}`,
        body: () => ({}),
      },
    ];
    for (const target of [...TARGETS, ...extraRoutes]) {
      for (const method of METHODS) {
        const withBody = method !== 'HEAD' && method !== 'GET';
        const body = withBody ? JSON.stringify(target.body()) : undefined;
        await checker.probe(probeOf(target, body, `method ${method}`, { method }));
      }
      // GET with a body, as some scanners send it.
      await checker.probe(
        probeOf(target, JSON.stringify(target.body()), 'GET with a body', { method: 'GET' }),
      );
    }
    await checker.finish();
  }, 300_000);

  it('survives hostile paths: percent-escapes, NUL, dot segments, double slashes, case, length', async () => {
    const checker = new Checker();
    const ref = uuid();
    const paths = [
      `/v1/momo/open/requesttopay/%zz`,
      `/v1/momo/open/requesttopay/%00`,
      `/v1/momo/open/requesttopay/${ref}%00`,
      `/v1/momo/open/%00/${ref}`,
      `/v1/momo/open/requesttopay/%`,
      `/v1/momo/open/requesttopay/%c0%af`,
      `/v1//momo//open//requesttopay//${ref}`,
      `//v1/momo/open/requesttopay/${ref}`,
      `/v1/momo/open/requesttopay/${ref}/`,
      `/v1/momo/open/requesttopay/${ref}//`,
      `/v1/momo/open/../open/requesttopay/${ref}`,
      `/v1/momo/open/requesttopay/../../../../etc/passwd`,
      `/v1/momo/open/requesttopay/%2e%2e/%2e%2e/x`,
      `/v1/momo/open/requesttopay%2F${ref}`,
      `/v1/momo/open%2Frequesttopay/${ref}`,
      `/V1/MOMO/OPEN/REQUESTTOPAY/${ref.toUpperCase()}`,
      `/v1/Momo/open/RequestToPay/${ref}`,
      `/v1/momo/OPEN/requesttopay/${ref}`,
      `/v1/%6d%6f%6d%6f/open/requesttopay/${ref}`,
      `/v1/momo/open/requesttopay/${'a'.repeat(8000)}`,
      `/v1/momo/open/requesttopay/${ref}?${'q=1&'.repeat(1000)}`,
      `/v1/${'x/'.repeat(2000)}`,
      `/v1/momo/open/requesttopay/${ref}#fragment`,
      `/v1/momo/open/requesttopay/${encodeURIComponent('😀\u202E')}`,
      `/v1/momo/guarded/${MOMO_SECRET}/requesttopay/%zz`,
      `/v1/momo/guarded/${MOMO_SECRET}/requesttopay/${ref}/`,
      `/v1/momo/guarded//${MOMO_SECRET}//requesttopay//${ref}`,
      `/v1/momo/guarded/%${MOMO_SECRET.charCodeAt(0).toString(16)}${MOMO_SECRET.slice(1)}/requesttopay/${ref}`,
      `/v1/momo/guarded/${MOMO_SECRET}/../guarded/${MOMO_SECRET}/requesttopay/${ref}`,
      `/v1/momo/guarded/${MOMO_SECRET}%00/requesttopay/${ref}`,
      `/v1/momo/guarded/${MOMO_SECRET}x/requesttopay/${ref}`,
      `/v1/momo/GUARDED/${MOMO_SECRET}/requesttopay/${ref}`,
      `/v1/momo/guarded/requesttopay/${MOMO_SECRET}`,
      `/v1/airtel/demo/callback/`,
      `/v1/airtel/demo/CALLBACK`,
      `/v1/airtel/DEMO/callback`,
      `/v1/airtel/demo/callback%00`,
      `/v1/airtel/demo/%zz`,
      `/v1/daraja/open/stk/`,
      `/v1/daraja/open/STK`,
      `/v1/daraja/open/c2b//validation`,
      `/v1/daraja/open/c2b/validation/extra`,
      `/v1/daraja/open/c2b%2Fvalidation`,
      `/v1/daraja/open/stk?x=1&x=2`,
      `/v1/daraja/%zz/stk`,
      `/v1/daraja/guarded/${DARAJA_SECRET}/stk/`,
      `/v1/daraja/guarded/${DARAJA_SECRET}//c2b//validation`,
      `/v1/daraja/guarded/${DARAJA_SECRET}/c2b/validation/extra`,
      `/v1/daraja/guarded/${DARAJA_SECRET}/%zz`,
      `/v1/daraja/guarded/${DARAJA_SECRET.toUpperCase()}/stk`,
      `/v1/daraja/Guarded/${DARAJA_SECRET}/stk`,
      `/v1/transactions/`,
      `/v1/transactions//momo/open/${ref}`,
      `/v1/transactions/momo/open/%zz`,
      `/v1/transactions/momo/open/%00`,
      `/v1/transactions/%zz/%zz/%zz`,
      `/v1/transactions/momo/open/${'a'.repeat(3000)}`,
      `/v1/transactions/momo/open/${ref}/extra`,
      `/v1/transactions/constructor/__proto__/prototype`,
      `/v1/transactions/momo/guarded/${ref}`,
      `/V1/TRANSACTIONS`,
      `/health/`,
      `/HEALTH`,
      `/health?probe=1`,
      `/health/../v1/momo/open/requesttopay/${ref}`,
      `//health`,
      `/`,
      `/%zz`,
      `/v1`,
      `/v1/`,
      `/v1/%zz/%zz/%zz`,
      `/v1/momo/%zz/x/y`,
      `/${'a'.repeat(8000)}`,
    ];
    for (const path of paths) {
      const family = path.split('/').filter(Boolean).slice(0, 2).join('/').slice(0, 24) || '/';
      const darajaish = path.includes('/daraja/');
      const body = JSON.stringify(darajaish ? darajaBody('stk') : momoSuccessBody());
      for (const method of path.includes('/momo/') ? ['POST', 'PUT', 'GET'] : ['POST', 'GET']) {
        for (const auth of [false, true]) {
          if (auth && !path.toLowerCase().includes('transactions')) continue;
          await checker.probe({
            family: `path ${family}`,
            method,
            path,
            body: method === 'GET' ? undefined : body,
            auth,
            variant: `${auth ? 'with' : 'without'} token`,
          });
        }
      }
    }
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { maxLength: 8 }),
        fc.constantFrom(...METHODS),
        fc.boolean(),
        fc.boolean(),
        async (segments, method, auth, trailingSlash) => {
          const path = `/${segments.map((s) => (s === 'UUID' ? uuid() : s)).join('/')}${trailingSlash ? '/' : ''}`;
          const darajaish = path.includes('daraja');
          await checker.probe({
            family: 'random path',
            method,
            path,
            body:
              method === 'GET' || method === 'HEAD'
                ? undefined
                : JSON.stringify(darajaish ? darajaBody('stk') : momoSuccessBody()),
            auth,
            variant: 'random path',
          });
        },
      ),
      { numRuns: RUNS.paths, endOnFailure: true },
    );
    await checker.finish();
  }, 300_000);

  it('survives huge, many, duplicate and odd headers', async () => {
    const checker = new Checker();
    const headerSets: [string, [string, string][]][] = [
      ['one 8 KB header', [['x-custom', 'h'.repeat(8000)]]],
      ['header over Node’s 16 KB limit', [['x-custom', 'h'.repeat(17_000)]]],
      ['200 headers', Array.from({ length: 200 }, (_, i) => [`x-many-${i}`, `v${i}`] as [string, string])],
      [
        '60 headers of 200 bytes',
        Array.from({ length: 60 }, (_, i) => [`x-wide-${i}`, 'w'.repeat(200)] as [string, string]),
      ],
      ['duplicate content-type', [['content-type', 'text/xml']]],
      ['duplicate x-forwarded-for', [['x-forwarded-for', STRANGER_IP]]],
      ['duplicate authorization', [['authorization', 'Bearer wrong-token-0000']]],
      ['cookie', [['cookie', `session=${uuid()}; other=1`]]],
      ['x-airtel-signature garbage', [['x-airtel-signature', 'sha256=zz']]],
      [
        'x-hash and x-signature',
        [
          ['x-hash', 'AAAA'],
          ['x-signature', '00'.repeat(32)],
        ],
      ],
      ['expect 100-continue', [['expect', '100-continue']]],
    ];
    const forwarded = [
      null,
      '',
      'garbage',
      'unknown',
      '::1',
      '::ffff:196.201.214.200',
      '196.201.214.200:443',
      ' 196.201.214.200 ',
      `${STRANGER_IP}, ${SAFARICOM_IP}`,
      `${SAFARICOM_IP}, ${STRANGER_IP}`,
      Array.from({ length: 300 }, (_, i) => `10.0.${i % 256}.${i % 200}`).join(', '),
      '999.999.999.999',
      '196.201.214.200/32',
      'x'.repeat(3000),
    ];
    const authorizations = [
      'Bearer',
      'Bearer ',
      `Bearer  ${BEARER}`,
      `bearer ${BEARER}`,
      `Bearer ${BEARER} extra`,
      'Basic dXNlcjpwYXNz',
      `Bearer ${'t'.repeat(8000)}`,
      `${BEARER}`,
    ];
    const targets = ONE_PER_FAMILY;
    for (const target of targets) {
      const body = () => JSON.stringify(target.body());
      for (const [name, headers] of headerSets)
        await checker.probe(probeOf(target, body(), name, { headers: headers.map(([n, v]) => [n, v]) }));
      if (target.family.startsWith('daraja'))
        for (const ip of forwarded)
          await checker.probe(
            probeOf(target, body(), `x-forwarded-for ${JSON.stringify(ip).slice(0, 40)}`, { ip }),
          );
      if (target.family.startsWith('management'))
        for (const authorization of authorizations)
          await checker.probe(
            probeOf(target, body(), `authorization ${authorization.slice(0, 30)}`, {
              auth: false,
              headers: [['authorization', authorization]],
            }),
          );
    }
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...targets),
        fc.array(fc.tuple(headerName, headerValue), { maxLength: 12 }),
        async (target, headers) => {
          await checker.probe(probeOf(target, JSON.stringify(target.body()), 'random headers', { headers }));
        },
      ),
      { numRuns: RUNS.headers, endOnFailure: true },
    );
    await checker.finish();
  }, 300_000);

  it('survives random JSON bodies and random members in valid bodies (property)', async () => {
    const checker = new Checker();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TARGETS),
        jsonValue,
        fc.nat(),
        fc.boolean(),
        async (target, value, pick, whole) => {
          const body = whole ? asJson(value) : asJson(replaceSomewhere(target.body(), pick, value));
          await checker.probe(probeOf(target, body, whole ? 'random JSON body' : 'random member'));
        },
      ),
      { numRuns: RUNS.bodies, endOnFailure: true },
    );
    await checker.finish();
  }, 300_000);

  it('keeps a correct path secret out of answers, quarantine and events when the route after it is wrong', async () => {
    const checker = new Checker();
    for (const [family, path] of [
      ['momo/guarded', `/v1/momo/guarded/${MOMO_SECRET}/nope/x`],
      ['momo/guarded', `/v1/momo/guarded/${MOMO_SECRET}/nope/x/y`],
      ['momo/guarded', `/v1/momo/guarded/${MOMO_SECRET}/requesttopay`],
      ['daraja/guarded', `/v1/daraja/guarded/${DARAJA_SECRET}/nope/x`],
      ['daraja/guarded', `/v1/daraja/guarded/${DARAJA_SECRET}/b2c`],
      ['daraja/guarded', `/v1/daraja/guarded/${DARAJA_SECRET}/stk/extra`],
    ] as const) {
      for (const method of ['POST', 'PUT', 'GET', 'DELETE']) {
        await checker.probe({
          family,
          method,
          path,
          body:
            method === 'GET'
              ? undefined
              : JSON.stringify(family.startsWith('daraja') ? darajaBody('stk') : momoSuccessBody()),
          variant: 'wrong route after the correct secret',
        });
      }
    }
    await checker.finish();
  }, 180_000);
});

describe('the recognisable secrets are distinct from everything else the tests send', () => {
  it('uses secrets that occur in no body template except as the Daraja credentials', () => {
    // Guards the leak checks above: a template that carried a path secret would make them meaningless.
    const templates = JSON.stringify([momoSuccessBody(), airtelBody(), registration()]);
    expect(secretsIn(templates)).toEqual([]);
    const daraja = JSON.stringify(DARAJA_ROUTES.map((r) => darajaBody(r)));
    expect(secretsIn(daraja).sort()).toEqual(['password', 'securityCredential']);
    expect(SECURITY_CREDENTIAL).not.toEqual(PASSWORD);
  });
});
