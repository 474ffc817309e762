import { describe, expect, it } from 'vitest';
import { ipAllowed } from '../../simulator/momo/ip-allow-list';

describe('MoMo IP allow-list matching', () => {
  it('matches an exact IPv4 address', () => {
    expect(ipAllowed('196.201.214.200', ['196.201.214.200'])).toBe(true);
    expect(ipAllowed('196.201.214.201', ['196.201.214.200'])).toBe(false);
  });

  it('matches addresses inside a CIDR range and not outside it', () => {
    expect(ipAllowed('10.255.0.1', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('11.0.0.1', ['10.0.0.0/8'])).toBe(false);
    expect(ipAllowed('192.168.1.130', ['192.168.1.128/25'])).toBe(true);
    expect(ipAllowed('192.168.1.127', ['192.168.1.128/25'])).toBe(false);
  });

  it('treats /32 as one address and /0 as every IPv4 address', () => {
    expect(ipAllowed('8.8.8.8', ['8.8.8.8/32'])).toBe(true);
    expect(ipAllowed('8.8.8.9', ['8.8.8.8/32'])).toBe(false);
    expect(ipAllowed('203.0.113.50', ['0.0.0.0/0'])).toBe(true);
  });

  it('compares IPv6 addresses as written, case-insensitively', () => {
    expect(ipAllowed('2001:DB8::1', ['2001:db8::1'])).toBe(true);
    expect(ipAllowed('2001:db8::2', ['2001:db8::1'])).toBe(false);
  });

  it('never matches malformed entries or addresses', () => {
    expect(ipAllowed('10.0.0.1', ['10.0.0.0/33'])).toBe(false);
    expect(ipAllowed('10.0.0.1', ['10.0.0/8'])).toBe(false);
    expect(ipAllowed('not-an-ip', ['10.0.0.0/8'])).toBe(false);
    expect(ipAllowed('10.0.0.1', [])).toBe(false);
  });
});
