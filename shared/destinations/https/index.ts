import * as z from '../../util/zod';
import type { DestinationTypeModule } from '../types';

const httpsSettingsSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  /**
   * Local simulator only: lets the destination resolve to a loopback or private address. Refused in AWS,
   * where such hosts are always refused (docs/webhooks.md#safety).
   */
  allowPrivateAddresses: z._default(z.boolean(), false),
});
export type HttpsDestinationSettings = z.infer<typeof httpsSettingsSchema>;

/** A URL without its credentials and query (either may carry a secret). */
function shownUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}${parsed.search ? '?…' : ''}`;
}

/**
 * `type: "https"` (the default): a partner's HTTPS endpoint receiving Standard Webhooks (docs/webhooks.md).
 * The signature travels as the three `webhook-*` headers; the engine reads the HTTP answer (2xx, 410,
 * 429/503 Retry-After, 3xx never followed). http only under `npm start`.
 */
export const httpsDestination: DestinationTypeModule<HttpsDestinationSettings> = {
  id: 'https',
  settingsSchema: httpsSettingsSchema,
  problems(name, settings, { runtime }) {
    if (runtime !== 'aws') return [];
    const problems: string[] = [];
    if (new URL(settings.url).protocol !== 'https:')
      problems.push(`destinations.${name}.url: https is required in AWS (http is for npm start only)`);
    if (settings.allowPrivateAddresses)
      problems.push(`destinations.${name}.allowPrivateAddresses: the local simulator's flag, refused in AWS`);
    return problems;
  },
  shown: (settings) => shownUrl(settings.url),
  createDeliverer: (io) => ({
    async deliver(request) {
      const { settings, runtime } = request;
      // Synth and start refuse http in AWS already; a config changed behind their back is not sent either.
      if (runtime === 'aws' && new URL(settings.url).protocol !== 'https:')
        return { kind: 'failed', error: 'not sent: https is required in AWS' };
      return io.http.send({
        url: settings.url,
        headers: {
          ...request.signature,
          'content-type': 'application/json',
          'user-agent': 'mobile-money-callback-relay',
        },
        body: request.body,
        timeoutMs: request.timeoutMs,
        allowPrivateAddresses: runtime === 'local' && settings.allowPrivateAddresses,
      });
    },
  }),
};
