import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { retryAfterSeconds as readRetryAfter } from '../../app/delivery/engine';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../../app/delivery/ports';
import { ForbiddenDestinationAddressError, isForbiddenAddress } from './address-guard';

/**
 * Bytes of a destination's answer read at most; the rest is never read (the socket is closed). The
 * engine scrubs these and keeps their first EXCERPT_CHARS, so a secret cut at this boundary lies past
 * what is kept.
 */
export const MAX_RESPONSE_BYTES = 4096;

/**
 * The DNS lookup the sockets use: every address a host resolves to is checked here, when the socket
 * connects, so a host that resolved to a public address for a check and to 169.254.169.254 for the
 * connection (DNS rebinding) is refused all the same.
 */
function guardedLookup(allowPrivateAddresses: boolean): LookupFunction {
  return ((hostname: string, options: LookupOptions, callback: (...args: unknown[]) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error);
      const forbidden = addresses.find((a) => isForbiddenAddress(a.address));
      if (forbidden && !allowPrivateAddresses)
        return callback(new ForbiddenDestinationAddressError(hostname, forbidden.address));
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as LookupFunction;
}

/**
 * Sends webhooks with node's http/https (docs/webhooks.md): no redirect is followed (node never does; a 3xx
 * is an answer like another), the whole exchange is bounded by the request's time-out, at most
 * MAX_RESPONSE_BYTES of the answer are read, and the destination's addresses are checked at connect time.
 */
export class HttpWebhookSender implements WebhookSender {
  async send(request: WebhookRequest): Promise<WebhookResponse> {
    const url = new URL(request.url);
    // An IP literal skips the lookup (node connects to it directly): it is checked here instead.
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) && isForbiddenAddress(literal) && !request.allowPrivateAddresses)
      return { kind: 'failed', error: new ForbiddenDestinationAddressError(url.hostname, literal).message };
    const transport = url.protocol === 'https:' ? https : http;
    const agent = new transport.Agent({
      keepAlive: false,
      lookup: guardedLookup(request.allowPrivateAddresses),
    });
    return new Promise<WebhookResponse>((resolve) => {
      let settled = false;
      const finish = (response: WebhookResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        agent.destroy();
        resolve(response);
      };
      const req = transport.request(
        url,
        {
          method: 'POST',
          agent,
          headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let bytes = 0;
          const answered = () => {
            const header = res.headers['retry-after'];
            const retryAfterSeconds = readRetryAfter(
              typeof header === 'string' ? header : undefined,
              new Date(),
            );
            finish({
              kind: 'answered',
              status: res.statusCode ?? 0,
              excerpt: Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8'),
              ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
            });
          };
          res.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            bytes += chunk.length;
            if (bytes >= MAX_RESPONSE_BYTES) answered();
          });
          res.on('end', answered);
          res.on('error', answered);
        },
      );
      const timer = setTimeout(
        () => finish({ kind: 'failed', error: `no answer within ${request.timeoutMs} ms` }),
        request.timeoutMs,
      );
      req.on('error', (error) => finish({ kind: 'failed', error: error.message }));
      req.end(request.body);
    });
  }
}
