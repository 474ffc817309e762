import { type ClientRequest, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Scheduler } from './clock';
import type { FaultSet } from './faults';
import type { ProviderName } from './http';
import { type Logger, maskDigitsInText } from './log';

/** One request the simulator sends to a partner: a callback, a C2B validation, a queue-timeout notice. */
export interface OutboundCall {
  provider: ProviderName;
  /** What it is, e.g. `requesttopay`, `stk`, `c2b-validation`, `b2c-timeout`. */
  kind: string;
  /** The provider-side id it belongs to (MoMo reference, Airtel transaction id, CheckoutRequestID…). */
  reference: string;
  url: string;
  method: 'POST' | 'PUT';
  /** Exact bytes to send; providers that sign build the text themselves. */
  body: string;
  headers?: Record<string, string>;
  /** Sent as `X-Forwarded-For`, which the relay's local server reads as the source IP. */
  sourceIp?: string;
  timeoutMs?: number;
  /** Short outcome for the log line, e.g. `SUCCESSFUL` or `ResultCode 1032`. */
  summary?: string;
}

type CallbackOutcome = 'delivered' | 'dropped' | 'failed' | 'timeout';

export interface CallbackLogEntry {
  seq: number;
  provider: ProviderName;
  kind: string;
  reference: string;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  body: string;
  outcome: CallbackOutcome;
  /** HTTP status the receiver answered. */
  status?: number;
  responseBody?: string;
  error?: string;
  /** Faults and variants that shaped this send: `repeat 2/3`, `stale-after-final`, `foreign-ip`, … */
  tags: string[];
  summary?: string;
  sentAt: string;
  durationMs: number;
}

export interface CallResult {
  outcome: CallbackOutcome;
  status?: number;
  body?: string;
  error?: string;
}

export interface SenderOptions {
  foreignIp: string;
  timeoutMs: number;
}

export class CallbackSender {
  readonly log: CallbackLogEntry[] = [];
  private seq = 0;
  /** Bumped by `clearLog()`: sends started before a reset do not write into the fresh log. */
  private generation = 0;
  private readonly inFlight = new Set<ClientRequest>();

  constructor(
    private readonly scheduler: Scheduler,
    private readonly logger: Logger,
    private readonly options: SenderOptions,
  ) {}

  /**
   * Sends a final-state callback under the given faults: drop, delay, foreign source IP, repeat, and a
   * stale non-final status after the final one. Returns the result of the first send (undefined if dropped).
   */
  async deliver(call: OutboundCall, faults: FaultSet, stale?: OutboundCall): Promise<CallResult | undefined> {
    const tags: string[] = [];
    if (faults.drop) {
      this.record(call, { outcome: 'dropped' }, ['drop'], {}, 0);
      return undefined;
    }
    if (faults.delayMs) {
      tags.push(`delay=${faults.delayMs}`);
      if (!(await this.scheduler.sleep(faults.delayMs))) return undefined;
    }
    let sourceIp = call.sourceIp;
    if (faults.foreignIp) {
      sourceIp = faults.foreignIp === true ? this.options.foreignIp : faults.foreignIp;
      tags.push('foreign-ip');
    }
    const times = faults.repeat ?? 1;
    let first: CallResult | undefined;
    for (let i = 1; i <= times; i++) {
      const result = await this.send(
        { ...call, sourceIp },
        times > 1 ? [...tags, `repeat ${i}/${times}`] : tags,
      );
      first ??= result;
    }
    if (faults.staleAfterFinal && stale) {
      await this.send({ ...stale, sourceIp }, [...tags, 'stale-after-final']);
    }
    return first;
  }

  /** One HTTP request, logged. Never throws: network failures are results too. */
  send(call: OutboundCall, tags: string[] = []): Promise<CallResult> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      ...call.headers,
    };
    if (call.sourceIp) headers['x-forwarded-for'] = call.sourceIp;
    const started = Date.now();
    const timeoutMs = call.timeoutMs ?? this.options.timeoutMs;
    const generation = this.generation;

    return new Promise<CallResult>((resolve) => {
      let url: URL | undefined;
      try {
        url = new URL(call.url);
      } catch {
        url = undefined;
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
        const result: CallResult = { outcome: 'failed', error: 'invalid URL' };
        this.record(call, result, tags, headers, 0);
        resolve(result);
        return;
      }
      const body = Buffer.from(call.body, 'utf8');
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      let settled = false;
      // Assigned below, after finish() (which clears it) is created; const would put finish in its TDZ.
      // eslint-disable-next-line prefer-const
      let timer: NodeJS.Timeout | undefined;
      let req: ClientRequest | undefined;
      const finish = (result: CallResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (req) this.inFlight.delete(req);
        if (generation === this.generation) this.record(call, result, tags, headers, Date.now() - started);
        resolve(result);
      };
      try {
        req = send(
          url,
          { method: call.method, headers: { ...headers, 'content-length': String(body.length) } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              finish({
                outcome: 'delivered',
                status: res.statusCode,
                body: Buffer.concat(chunks).toString('utf8'),
              }),
            );
            res.on('error', (e) => finish({ outcome: 'failed', status: res.statusCode, error: e.message }));
          },
        );
      } catch (e) {
        // Synchronous refusals (e.g. a header value Node rejects) are failed sends, not crashes.
        finish({ outcome: 'failed', error: e instanceof Error ? e.message : String(e) });
        return;
      }
      const sent = req;
      timer = setTimeout(() => {
        finish({ outcome: 'timeout', error: `no answer within ${timeoutMs} ms` });
        sent.destroy();
      }, timeoutMs);
      this.inFlight.add(sent);
      sent.on('error', (e) => finish({ outcome: 'failed', error: e.message }));
      sent.end(body);
    });
  }

  private record(
    call: OutboundCall,
    result: CallResult,
    tags: string[],
    headers: Record<string, string>,
    durationMs: number,
  ): void {
    const entry: CallbackLogEntry = {
      seq: ++this.seq,
      provider: call.provider,
      kind: call.kind,
      reference: call.reference,
      method: call.method,
      url: call.url,
      requestHeaders: headers,
      body: call.body,
      outcome: result.outcome,
      tags,
      sentAt: new Date(Date.now() - durationMs).toISOString(),
      durationMs,
    };
    if (result.status !== undefined) entry.status = result.status;
    if (result.body !== undefined) entry.responseBody = result.body;
    if (result.error !== undefined) entry.error = result.error;
    if (call.summary !== undefined) entry.summary = call.summary;
    this.log.push(entry);

    const what = result.outcome === 'delivered' ? `→ ${result.status}` : `→ ${result.outcome}`;
    const detail = result.error ? ` (${result.error})` : '';
    const extra = tags.length ? ` [${tags.join(', ')}]` : '';
    this.logger.line(
      `callback ${call.provider} ${call.kind} ${call.method} ${maskDigitsInText(call.url)}` +
        `${call.summary ? ` ${call.summary}` : ''} ${what}${detail} ${durationMs}ms${extra}`,
    );
  }

  clearLog(): void {
    this.generation++;
    this.log.length = 0;
  }

  abortAll(): void {
    for (const req of this.inFlight) req.destroy();
    this.inFlight.clear();
  }
}
