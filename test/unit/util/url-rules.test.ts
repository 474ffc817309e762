import { describe, expect, it } from 'vitest';
import { checkUrlRules } from '../../../shared/util/url-rules';

describe('Daraja URL rules', () => {
  it.each([
    'https://relay.example.com/v1/daraja/600000/stk',
    'http://localhost:3000/v1/momo/demo/requesttopay/6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f',
  ])('accepts %s', (url) => {
    expect(checkUrlRules(url)).toEqual([]);
  });

  it.each([
    ['https://example.com/mpesa/callback', 'mpesa'],
    ['https://example.com/M-PESA/callback', 'm-pesa'],
    ['https://SafariCom.example.com/cb', 'safaricom'],
    ['https://example.com/run.exe', 'exe'],
    ['https://example.com/Exec/cb', 'exec'],
    ['https://example.com/cmd/cb', 'cmd'],
    ['https://example.com/mysql/cb', 'sql'],
    ['https://example.com/cb?Query=1', 'query'],
  ])('refuses %s because of "%s" in any case', (url, word) => {
    const violations = checkUrlRules(url);
    expect(violations.map((v) => v.message).join()).toContain(`"${word}"`);
  });

  it('reports "exec" once, not also "exe"', () => {
    expect(checkUrlRules('https://example.com/exec')).toHaveLength(1);
  });

  it('refuses tunnel and request-bin hosts', () => {
    expect(checkUrlRules('https://abc.ngrok.io/cb')[0]?.rule).toBe('tunnel-host');
    expect(checkUrlRules('https://mockbin.org/bin/1')[0]?.rule).toBe('tunnel-host');
  });

  it('requires https only when asked to (production)', () => {
    expect(checkUrlRules('http://relay.example.com/cb')).toEqual([]);
    expect(checkUrlRules('http://relay.example.com/cb', { requireHttps: true })[0]?.rule).toBe(
      'https-required',
    );
  });

  it('refuses something that is not an absolute URL', () => {
    expect(checkUrlRules('/relative/path')[0]?.rule).toBe('malformed');
  });
});
