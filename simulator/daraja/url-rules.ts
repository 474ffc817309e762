/**
 * C2B URL rules (Daraja API docs, URL rules; provider notes). Written independently of the relay's own
 * validator on purpose: each one checks the other in the end-to-end tests.
 */

/** Checked in this order so `m-pesa` is reported as such rather than as a shorter word inside it. */
const FORBIDDEN_WORDS = ['m-pesa', 'mpesa', 'safaricom', 'exec', 'exe', 'cmd', 'sql', 'query'] as const;
const TUNNEL_WORDS = ['ngrok', 'mockbin', 'requestbin'] as const;

export class UrlRuleError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`Invalid ${field} - ${reason}`);
    this.name = 'UrlRuleError';
  }
}

/** Throws `UrlRuleError` with the platform's message style ("Invalid ValidationURL - URL has the word MPESA"). */
export function checkRegisteredUrl(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw new UrlRuleError(field, 'URL is missing');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UrlRuleError(field, 'URL is malformed');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UrlRuleError(field, 'URL must use http or https');
  const lower = value.toLowerCase();
  for (const word of [...FORBIDDEN_WORDS, ...TUNNEL_WORDS]) {
    if (lower.includes(word)) throw new UrlRuleError(field, `URL has the word ${word.toUpperCase()}`);
  }
  return value;
}
