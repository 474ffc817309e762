/**
 * Daraja's URL registration rules (Daraja API docs, URL rules; provider notes). The relay applies them to every
 * URL it generates or is configured with, so a URL it hands out is never refused at registration.
 */
const FORBIDDEN_URL_WORDS = ['m-pesa', 'mpesa', 'safaricom', 'exec', 'exe', 'cmd', 'sql', 'query'] as const;
const FORBIDDEN_URL_HOSTS = ['ngrok', 'mockbin', 'requestbin'] as const;

export interface UrlRuleViolation {
  rule: 'malformed' | 'forbidden-word' | 'tunnel-host' | 'https-required' | 'credentials-in-url';
  message: string;
}

export interface UrlRuleOptions {
  /** Production registrations must be https; the sandbox allows http. */
  requireHttps?: boolean;
}

export function checkUrlRules(url: string, options: UrlRuleOptions = {}): UrlRuleViolation[] {
  const violations: UrlRuleViolation[] = [];
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [{ rule: 'malformed', message: `"${url}" is not an absolute URL` }];
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    violations.push({ rule: 'malformed', message: `scheme ${parsed.protocol} is not http or https` });
  }
  if (options.requireHttps && parsed.protocol !== 'https:') {
    violations.push({ rule: 'https-required', message: 'production callback URLs must use https' });
  }
  if (parsed.username || parsed.password) {
    violations.push({ rule: 'credentials-in-url', message: 'URL must not carry user:password' });
  }
  const lower = url.toLowerCase();
  for (const word of FORBIDDEN_URL_WORDS) {
    // "exe" inside "exec" is one finding, not two.
    const haystack = word === 'exe' ? lower.replaceAll('exec', '') : lower;
    if (haystack.includes(word)) {
      violations.push({
        rule: 'forbidden-word',
        message: `URL contains the word "${word}" (refused by Daraja in any case)`,
      });
    }
  }
  for (const host of FORBIDDEN_URL_HOSTS) {
    if (parsed.hostname.toLowerCase().includes(host)) {
      violations.push({
        rule: 'tunnel-host',
        message: `public tunnel/request-bin hosts (${host}) are refused by Daraja`,
      });
    }
  }
  return violations;
}

export function describeViolations(violations: UrlRuleViolation[]): string {
  return violations.map((v) => v.message).join('; ');
}
