import { describe, expect, it } from 'vitest';
import {
  checkSourceIp,
  createIpAllowList,
  isValidCidr,
  normalizeIp,
  parseCidr,
} from '../../../shared/util/ip-allowlist';

const list = createIpAllowList(['196.201.214.200/32', '196.201.212.0/24', '2001:db8::/32']);

describe('IP allow-list', () => {
  it('allows an address listed as a single host and names the entry that matched', () => {
    expect(checkSourceIp('196.201.214.200', list, 'enforce')).toEqual({
      ip: '196.201.214.200',
      mode: 'enforce',
      verdict: 'allowed',
      matched: '196.201.214.200/32',
      reject: false,
    });
  });

  it('allows any address inside a CIDR range, and nothing next to it', () => {
    expect(list.match('196.201.212.138')?.text).toBe('196.201.212.0/24');
    expect(list.match('196.201.213.1')).toBeUndefined();
    expect(list.match('196.201.214.201')).toBeUndefined();
  });

  it('denies and rejects an address outside the list in enforce mode', () => {
    expect(checkSourceIp('203.0.113.9', list, 'enforce')).toMatchObject({ verdict: 'denied', reject: true });
  });

  it('denies but does not reject in log-only mode', () => {
    expect(checkSourceIp('203.0.113.9', list, 'log-only')).toMatchObject({
      verdict: 'denied',
      reject: false,
    });
  });

  it('checks nothing in mode off', () => {
    expect(checkSourceIp('203.0.113.9', list, 'off')).toMatchObject({
      verdict: 'not-checked',
      reject: false,
    });
  });

  it('treats an IPv4-mapped IPv6 address as the IPv4 address', () => {
    expect(normalizeIp('::ffff:196.201.214.200')).toBe('196.201.214.200');
    expect(checkSourceIp('::ffff:196.201.214.200', list, 'enforce').verdict).toBe('allowed');
  });

  it('matches IPv6 ranges', () => {
    expect(list.match('2001:db8:1::5')?.text).toBe('2001:db8::/32');
    expect(list.match('2001:db9::1')).toBeUndefined();
  });

  it('denies something that is not an IP address at all', () => {
    expect(checkSourceIp('', list, 'enforce')).toMatchObject({ verdict: 'denied', reject: true });
    expect(checkSourceIp('not-an-ip', list, 'enforce').reject).toBe(true);
  });

  it('parses bare addresses as host routes and refuses malformed CIDRs', () => {
    expect(parseCidr('196.201.214.200')).toMatchObject({ prefix: 32, family: 'ipv4' });
    expect(
      ['196.201.214.0/33', '196.201.214/24', '1.2.3.4/2/3', 'x/8', '::1/129', '10.0.0.0/'].map(isValidCidr),
    ).toEqual([false, false, false, false, false, false]);
    expect(() => createIpAllowList(['nope'])).toThrow('"nope"');
  });
});
