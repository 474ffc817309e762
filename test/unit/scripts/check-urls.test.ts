import { describe, expect, it } from 'vitest';
import { checkPublicUrls, formatVerdicts, listPublicUrls } from '../../../scripts/check-urls';
import { parseConfig } from '../../../shared/config/load';

const SECRET = 'check-urls-secret-0123';
const config = parseConfig({
  publicBaseUrl: 'https://relay.example.com',
  management: { bearerToken: 'check-urls-token' },
  accounts: {
    momo: { demo: {} },
    daraja: {
      'ke-600638': { pathSecret: SECRET, c2b: { partner: { url: 'https://partner.example.com/decide' } } },
    },
  },
});

describe('check-urls', () => {
  it('lists the thirteen Daraja route URLs with the path secret, the configured partner URL and the MoMo pattern', () => {
    // Act
    const urls = listPublicUrls(config);
    // Assess
    const daraja = urls.filter((u) => u.provider === 'daraja').map((u) => u.url);
    expect(daraja).toEqual([
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/stk`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/c2b/validation`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/c2b/confirmation`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/b2c/result`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/b2c/timeout`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/b2b/result`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/b2b/timeout`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/status/result`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/status/timeout`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/balance/result`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/balance/timeout`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/reversal/result`,
      `https://relay.example.com/v1/daraja/ke-600638/${SECRET}/reversal/timeout`,
      'https://partner.example.com/decide',
    ]);
    expect(urls.find((u) => u.provider === 'momo')?.url).toBe(
      'https://relay.example.com/v1/momo/demo/{kind}/{referenceId}',
    );
  });

  it('passes every URL of a sound config', () => {
    expect(checkPublicUrls(config).filter((v) => v.violations.length)).toEqual([]);
  });

  it('fails each URL under a base that breaks the rules, with the reasons', () => {
    // Prepare
    const bad = { ...config, publicBaseUrl: 'https://mpesa-relay.ngrok.io' };
    // Act
    const verdicts = checkPublicUrls(bad).filter((v) => v.source === 'route');
    const report = formatVerdicts(verdicts);
    // Assess
    expect(verdicts.every((v) => v.violations.map((x) => x.rule).includes('forbidden-word'))).toBe(true);
    expect(verdicts.every((v) => v.violations.map((x) => x.rule).includes('tunnel-host'))).toBe(true);
    expect(report).toContain('FAIL');
    expect(report).toMatch(/\d+ of \d+ URLs break the URL rules/);
  });

  it('can print the report with path secrets hidden', () => {
    const report = formatVerdicts(checkPublicUrls(config), {
      hideSecrets: (url) => url.replace(SECRET, '{secret}'),
    });
    expect(report).not.toContain(SECRET);
    expect(report).toContain('/v1/daraja/ke-600638/{secret}/stk');
  });
});
