/**
 * Support for the black-box hostile-input suite (test/hostile): a relay configured with recognisable
 * secrets, a raw HTTP client that sends exactly the bytes, paths and headers it is given (fetch would
 * normalise them), and lookups of the quarantine entry a request produced.
 *
 * Everything here drives the relay over HTTP and reads the store only through `listQuarantine` and
 * `listTransactionItems`, so it survives refactors of the relay's internals.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { type LocalRelay, startLocalRelay } from '../../local/relay';
import { parseConfig } from '../../shared/config/load';
import { cuttableForwarder } from './cuttable-forwarder';
import { dynamoEndpoint, testTableName } from './dynamo';
import {
  ADMIN_HEADERS,
  ADMIN_TOKEN,
  CollectingSink,
  silentLogger,
  startTestRelay,
  type TestRelay,
  type TestRelayOptions,
} from './relay';

/** The envelope flush() returns (derived, so this file does not depend on where the type lives). */
export type EventEnvelope = Awaited<ReturnType<TestRelay['flush']>>[number];

// ---------------------------------------------------------------------------------------------
// Secrets: recognisable strings that must never come back out of the relay.
// ---------------------------------------------------------------------------------------------

export const MOMO_SECRET = 'momoPathSecretHOSTILE7f3a9c';
export const DARAJA_SECRET = 'darajaPathSecretHOSTILE4e8b21';
export const AIRTEL_KEY = 'airtelCallbackKeyHOSTILE91d0';
export const SECURITY_CREDENTIAL = 'S3cr3tCredentialHOSTILEb64Zm9vYmFy';
export const PASSWORD = 'Passw0rdHOSTILEMTc0Mzc5MjAyNA';
export const BEARER = ADMIN_TOKEN;

/** Every secret with a name, for precise failure messages. */
export const SECRETS: Readonly<Record<string, string>> = {
  momoPathSecret: MOMO_SECRET,
  darajaPathSecret: DARAJA_SECRET,
  airtelCallbackKey: AIRTEL_KEY,
  securityCredential: SECURITY_CREDENTIAL,
  password: PASSWORD,
  bearerToken: BEARER,
};

/** Names of the secrets that occur in `text`. */
export function secretsIn(text: string, secrets: Readonly<Record<string, string>> = SECRETS): string[] {
  return Object.entries(secrets)
    .filter(([, value]) => text.includes(value))
    .map(([name]) => name);
}

/** A Safaricom address of the default allow-list, and one that is not in it. */
export const SAFARICOM_IP = '196.201.214.200';
export const STRANGER_IP = '203.0.113.9';

export const DARAJA_ROUTES = [
  'stk',
  'c2b/validation',
  'c2b/confirmation',
  'b2c/result',
  'b2c/timeout',
  'status/result',
  'status/timeout',
] as const;
export type DarajaRoute = (typeof DARAJA_ROUTES)[number];

/** momo/open, momo/guarded (path secret), airtel/demo (enforce), daraja/open and daraja/guarded (secret + enforce). */
export function hostileConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    accounts: {
      momo: {
        open: { currency: 'EUR' },
        guarded: { currency: 'EUR', pathSecret: MOMO_SECRET },
      },
      airtel: {
        demo: { callbackKey: AIRTEL_KEY, hashMode: 'enforce', currency: 'UGX' },
      },
      daraja: {
        open: { shortCode: '600638', sourceIp: { mode: 'enforce' } },
        guarded: { pathSecret: DARAJA_SECRET, sourceIp: { mode: 'enforce' } },
      },
    },
    ...extra,
  };
}

export function startHostileRelay(
  extra: Record<string, unknown> = {},
  options: TestRelayOptions = {},
): Promise<TestRelay> {
  return startTestRelay(hostileConfig(extra), options);
}

// ---------------------------------------------------------------------------------------------
// Raw HTTP
// ---------------------------------------------------------------------------------------------

export interface RawRequest {
  method: string;
  /** Sent verbatim (no normalisation of `..`, `//` or percent-escapes). */
  path: string;
  /** Pairs, so that a header can be sent more than once. */
  headers?: ReadonlyArray<readonly [string, string]>;
  body?: Buffer | string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/** One request over node:http, exactly as given. Never throws for an HTTP status. */
export function rawRequest(baseUrl: string, req: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const body = req.body === undefined ? undefined : Buffer.from(req.body);
  // A header given more than once is sent as one line per value.
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of req.headers ?? []) {
    const seen = headers[name];
    headers[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  if (body !== undefined && !(req.headers ?? []).some(([n]) => n.toLowerCase() === 'content-length'))
    headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: url.hostname === 'localhost' ? '127.0.0.1' : url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        headers,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
        });
      },
    );
    request.setTimeout(30_000, () => request.destroy(new Error(`timeout: ${req.method} ${req.path}`)));
    request.on('error', reject);
    if (body !== undefined) request.write(body);
    request.end();
  });
}

// ---------------------------------------------------------------------------------------------
// Quarantine lookups
// ---------------------------------------------------------------------------------------------

/** The header every hostile request carries, so its quarantine entry can be found. */
/**
 * JSON over HTTP to a hostile relay's `momo/open` account, as a partner and as MoMo would: `call` (admin
 * adds the bearer token), `register` (201 expected) and `view` (the transaction read, 200 expected). The
 * expectations are vitest's, so a helper that fails names the answer.
 */
export function momoOpenClient(relay: { url: string }, expect: (actual: unknown, message?: string) => any) {
  async function call(method: string, path: string, body?: unknown, admin = false): Promise<RawResponse> {
    const headers: [string, string][] = [['content-type', 'application/json']];
    if (admin) headers.push(...Object.entries(ADMIN_HEADERS));
    return rawRequest(relay.url, {
      method,
      path,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }
  async function register(reference: string, externalId?: string): Promise<void> {
    const registration = {
      provider: 'momo',
      account: 'open',
      kind: 'requesttopay',
      reference,
      amount: '100',
      currency: 'EUR',
      ...(externalId ? { externalId } : {}),
    };
    const res = await call('POST', '/v1/transactions', registration, true);
    expect(res.status, res.text).toBe(201);
  }
  async function view(reference: string, query = ''): Promise<Record<string, any>> {
    const res = await call('GET', `/v1/transactions/momo/open/${reference}${query}`, undefined, true);
    expect(res.status, res.text).toBe(200);
    return JSON.parse(res.text);
  }
  return { call, register, view };
}

export const MARKER_HEADER = 'x-hostile-id';

export const newMarker = () => `h-${randomUUID()}`;

const utcDay = (d: Date) => d.toISOString().slice(0, 10);

/**
 * How long a refusal's record is waited for. A refusal is answered once its quarantine write landed or
 * after QUARANTINE_WRITE_BUDGET_MS (1 s), whichever comes first (shared/app/callbacks/quarantine.ts): on
 * two loaded cores DynamoDB Local can take longer, and the entry lands after the answer.
 */
const RECORD_WAIT_MS = 60_000;
const RECORD_POLL_MS = 100;

/** The first defined answer of `read`, polled until RECORD_WAIT_MS have passed; undefined then. */
export async function awaitRecord<T>(read: () => Promise<T | undefined>): Promise<T | undefined> {
  const deadline = Date.now() + RECORD_WAIT_MS;
  for (;;) {
    const found = await read();
    if (found !== undefined || Date.now() >= deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, RECORD_POLL_MS));
  }
}

/**
 * The quarantine entry of the request that carried `marker` in MARKER_HEADER (newest first; today's
 * UTC day and, around midnight, the day before), waited for (RECORD_WAIT_MS). Undefined when none came.
 */
export function findQuarantined(
  relay: TestRelay,
  marker: string,
  limit = 25,
): Promise<Record<string, unknown> | undefined> {
  return awaitRecord(() => quarantinedNow(relay, marker, limit));
}

/** The quarantine entry of the request that carried `marker`, as the store holds it right now. */
async function quarantinedNow(
  relay: TestRelay,
  marker: string,
  limit = 25,
): Promise<Record<string, unknown> | undefined> {
  const now = new Date();
  const days = [...new Set([utcDay(now), utcDay(new Date(now.getTime() - 60_000))])];
  const marked = (item: Record<string, unknown>) => {
    const headers = item.headers as Record<string, unknown> | undefined;
    return headers?.[MARKER_HEADER] === marker || JSON.stringify(item).includes(marker);
  };
  // Newest first: a probe sent alone finds its entry on top, so the generous page is only the fallback
  // (reading 25 entries for each of a corpus' thousand refusals was most of DynamoDB Local's work).
  for (const page of [...new Set([Math.min(3, limit), limit])])
    for (const day of days) {
      const hit = (await relay.store.listQuarantine(day, page)).find(marked);
      if (hit) return hit;
    }
  return undefined;
}

/** Every marker (MARKER_HEADER's value) a text carries: an entry's headers or, cut short, anywhere in it. */
const MARKERS_IN = /h-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * The quarantine entries of the requests that carried `markers`, sent at or after `since` (ISO), by
 * marker: the days from `since` to today, newest first, 200 entries a page down to `since`. One read
 * for a batch of refusals instead of one per refusal (a query costs DynamoDB Local the same CPU
 * whether it returns 3 entries or 200).
 */
export async function quarantinedByMarker(
  relay: TestRelay,
  markers: ReadonlySet<string>,
  since: string,
): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  const today = utcDay(new Date());
  for (const day of [...new Set([today, since.slice(0, 10)])]) {
    let after: string | undefined;
    do {
      const page = await relay.store.listQuarantineDay(day, { limit: 200, ...(after ? { after } : {}) });
      for (const entry of page.entries)
        for (const marker of JSON.stringify(entry).match(MARKERS_IN) ?? [])
          if (markers.has(marker)) found.set(marker, entry as unknown as Record<string, unknown>);
      if (found.size === markers.size || page.entries.some((entry) => entry.receivedAt < since)) break;
      after = page.next;
    } while (after);
  }
  return found;
}

/** The audit log entries written at or after `since` (ISO), newest first, all pages. */
export async function auditedSince(relay: TestRelay, since: string): Promise<Record<string, unknown>[]> {
  const entries: Record<string, unknown>[] = [];
  for (const day of [...new Set([utcDay(new Date()), since.slice(0, 10)])]) {
    let after: string | undefined;
    do {
      const page = await relay.store.listAuditDay(day, { limit: 200, ...(after ? { after } : {}) });
      entries.push(...(page.entries.filter((e) => e.at >= since) as unknown as Record<string, unknown>[]));
      if (page.entries.some((e) => e.at < since)) break;
      after = page.next;
    } while (after);
  }
  return entries;
}

/**
 * The audit log entry of a refused management request (issue 30: management refusals go to the audit
 * log, never into the provider-callback quarantine): the newest with the probe's method and status at or
 * after `since` (an audit entry keeps no headers or body to mark). Not waited for: the management API
 * answers only once its audit entry is written (shared/http/management-router.ts).
 */
export async function findAudited(
  relay: TestRelay,
  method: string,
  status: number,
  since: string,
): Promise<Record<string, unknown> | undefined> {
  const today = utcDay(new Date());
  const days = [...new Set([today, since.slice(0, 10)])];
  for (const day of days) {
    const { entries } = await relay.store.listAuditDay(day, { limit: 5 });
    const hit = entries.find(
      (e) => e.at >= since && e.httpStatus === status && e.method === method.slice(0, 16),
    );
    if (hit) return hit as unknown as Record<string, unknown>;
  }
  return undefined;
}

/** Today's quarantine entries (a generous page), e.g. to count before/after. */
export async function quarantineToday(relay: TestRelay, limit = 500): Promise<Record<string, unknown>[]> {
  return relay.store.listQuarantine(utcDay(new Date()), limit);
}

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

export const eventType = (e: EventEnvelope) => e.metadata.type;
export const eventData = (e: EventEnvelope) => e.data as Record<string, any>;

export function eventsOfReference(events: readonly EventEnvelope[], reference: string): EventEnvelope[] {
  return events.filter((e) => eventData(e).reference === reference);
}

/** The CallbackRejected event raised for a quarantine entry. */
export function rejectionFor(
  events: readonly EventEnvelope[],
  quarantined: Record<string, unknown>,
): EventEnvelope | undefined {
  return events.find(
    (e) => eventType(e) === 'CallbackRejected' && eventData(e).quarantineId === quarantined.id,
  );
}

// ---------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------

export const uuid = () => randomUUID();

/** `depth` levels of nested arrays or objects around `1`, as text (JSON.stringify would overflow). */
export function deepJson(depth: number, kind: 'array' | 'object', key = 'a'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
    : `${`{"${key}":`.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Airtel `hash` for `{transaction}` (recipes stringify-without-hash / stringify-transaction). */
export function airtelHash(transaction: unknown, key = AIRTEL_KEY): string {
  return createHmac('sha256', key).update(JSON.stringify({ transaction }), 'utf8').digest('base64');
}

export function stkBody(checkoutRequestId: string, fields: { amount?: number; resultCode?: number } = {}) {
  const resultCode = fields.resultCode ?? 0;
  return {
    Body: {
      stkCallback: {
        MerchantRequestID: '29115-34620561-1',
        CheckoutRequestID: checkoutRequestId,
        ResultCode: resultCode,
        ResultDesc:
          resultCode === 0 ? 'The service request is processed successfully.' : 'Request cancelled by user',
        ...(resultCode === 0
          ? {
              CallbackMetadata: {
                Item: [
                  { Name: 'Amount', Value: fields.amount ?? 1 },
                  { Name: 'MpesaReceiptNumber', Value: 'NLJ7RT61SV' },
                  { Name: 'Balance' },
                  { Name: 'TransactionDate', Value: 20191219102115 },
                  { Name: 'PhoneNumber', Value: 254708374149 },
                ],
              },
            }
          : {}),
      },
    },
  };
}

export function c2bBody(transId: string, fields: Record<string, unknown> = {}) {
  return {
    TransactionType: 'Pay Bill',
    TransID: transId,
    TransTime: '20191122063845',
    TransAmount: '10',
    BusinessShortCode: '600638',
    BillRefNumber: 'ACC-001',
    InvoiceNumber: '',
    OrgAccountBalance: '',
    ThirdPartyTransID: '',
    MSISDN: '25470****149',
    FirstName: 'John',
    MiddleName: '',
    LastName: 'Doe',
    ...fields,
  };
}

export function b2cResultBody(
  originatorConversationId: string,
  parameters: { Key: string; Value?: unknown }[] = [
    { Key: 'TransactionAmount', Value: 10 },
    { Key: 'TransactionReceipt', Value: 'NLJ41HAY6Q' },
    { Key: 'ReceiverPartyPublicName', Value: '254708374149 - John Doe' },
  ],
) {
  return {
    Result: {
      ResultType: 0,
      ResultCode: 0,
      ResultDesc: 'The service request is processed successfully.',
      OriginatorConversationID: originatorConversationId,
      ConversationID: `AG_${randomUUID().replaceAll('-', '').slice(0, 20)}`,
      TransactionID: 'NLJ41HAY6Q',
      ResultParameters: { ResultParameter: parameters },
      ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: 'https://example.com/timeout' } },
    },
  };
}

export function timeoutEchoBody(originatorConversationId: string) {
  return {
    InitiatorName: 'testapi',
    SecurityCredential: SECURITY_CREDENTIAL,
    CommandID: 'BusinessPayment',
    Amount: '10',
    PartyA: '600981',
    PartyB: '254708374149',
    Remarks: 'Payout',
    Occassion: '',
    OriginatorConversationID: originatorConversationId,
  };
}

export function statusResultBody(queriedOcid: string) {
  return {
    Result: {
      ConversationID: 'AG_20180223_0000493344ae97d86f75',
      OriginatorConversationID: '3213-416199-2',
      ResultCode: 0,
      ResultDesc: 'The service request is processed successfully.',
      ResultType: 0,
      TransactionID: 'MBN0000000',
      ResultParameters: {
        ResultParameter: [
          { Key: 'OriginatorConversationID', Value: queriedOcid },
          { Key: 'TransactionStatus', Value: 'Completed' },
          { Key: 'Amount', Value: 300 },
          { Key: 'ReceiptNo', Value: 'MBN31H462N' },
        ],
      },
      ReferenceData: { ReferenceItem: { Key: 'Occasion' } },
    },
  };
}

/** A plausible body for each Daraja route, carrying the recognisable SecurityCredential and Password. */
export function darajaBody(route: DarajaRoute, id: string = `HX${randomUUID().slice(0, 8)}`) {
  const secrets = { SecurityCredential: SECURITY_CREDENTIAL, Password: PASSWORD };
  switch (route) {
    case 'stk':
      return { ...stkBody(`ws_CO_${id}`), ...secrets };
    case 'c2b/validation':
    case 'c2b/confirmation':
      return { ...c2bBody(id), ...secrets };
    case 'b2c/result':
      return { ...b2cResultBody(id), ...secrets };
    case 'b2c/timeout':
    case 'status/timeout':
      return { ...timeoutEchoBody(id), Password: PASSWORD };
    case 'status/result':
      return { ...statusResultBody(id), ...secrets };
  }
}

export function momoSuccessBody(fields: Record<string, unknown> = {}) {
  return {
    financialTransactionId: '363440463',
    externalId: 'order-8841',
    amount: '100',
    currency: 'EUR',
    payer: { partyIdType: 'MSISDN', partyId: '46733123459' },
    payerMessage: 'Order 8841',
    payeeNote: 'Thanks',
    status: 'SUCCESSFUL',
    ...fields,
  };
}

export function airtelBody(
  transaction: Record<string, unknown> = {
    id: `AT-${randomUUID().slice(0, 8)}`,
    message: 'Paid UGX 5,000 to MERCHANT',
    status_code: 'TS',
    airtel_money_id: 'MP210603.1234.A00001',
  },
) {
  return { transaction, hash: airtelHash(transaction) };
}

// ---------------------------------------------------------------------------------------------
// A relay whose connection to DynamoDB Local a test may cut
// ---------------------------------------------------------------------------------------------

export interface RelayWithCuttableDynamo {
  relay: LocalRelay;
  /** Refuses every connection to DynamoDB from now on, and ends the open ones: DynamoDB is unreachable. */
  cutDynamo(): Promise<void>;
  /** Stops the relay, then the cut. */
  stop(): Promise<void>;
}

/**
 * The real local relay (startLocalRelay) on the run's DynamoDB Local, reached through a forwarder the
 * test can cut, so that DynamoDB becomes unreachable under a running relay (connections refused, as
 * when DynamoDB Local is killed) without starting a JVM of its own.
 */
export async function startRelayWithCuttableDynamo(
  rawConfig: Record<string, unknown> = {},
): Promise<RelayWithCuttableDynamo> {
  const forwarder = await cuttableForwarder(dynamoEndpoint());
  try {
    const config = parseConfig({
      management: { auth: 'bearer', bearerToken: ADMIN_TOKEN },
      ...hostileConfig(),
      ...rawConfig,
    });
    const relay = await startLocalRelay({
      config,
      dynamoEndpoint: forwarder.endpoint,
      tableName: testTableName('hostile'),
      port: 0,
      log: silentLogger,
      sink: new CollectingSink(),
      streamPollMs: 50,
    });
    return {
      relay,
      cutDynamo: forwarder.cut,
      async stop() {
        await Promise.race([relay.stop(), new Promise((r) => setTimeout(r, 10_000))]);
        await forwarder.cut();
      },
    };
  } catch (error) {
    await forwarder.cut();
    throw error;
  }
}
