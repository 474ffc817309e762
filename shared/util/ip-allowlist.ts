import { BlockList, isIP } from 'node:net';

/**
 * Source-IP allow-lists: CIDR entries (IPv4 and IPv6; a bare address is a /32 or /128), matched
 * against the caller's address as API Gateway reports it. Generic: nothing here names a provider.
 */
export type IpCheckMode = 'enforce' | 'log-only' | 'off';

export interface Cidr {
  /** The entry as configured, e.g. "196.201.214.200/32". */
  text: string;
  network: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** "::ffff:196.201.214.200" (IPv4-mapped) and "[::1]" are the same addresses as "196.201.214.200" and "::1". */
export function normalizeIp(value: string): string | undefined {
  let ip = value.trim();
  if (ip.startsWith('[') && ip.endsWith(']')) ip = ip.slice(1, -1);
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) ip = mapped[1]!;
  return isIP(ip) ? ip : undefined;
}

export function parseCidr(text: string): Cidr | undefined {
  const [address = '', prefixText, extra] = text.trim().split('/');
  if (extra !== undefined) return undefined;
  const network = normalizeIp(address);
  if (!network) return undefined;
  const family = isIP(network) === 4 ? 'ipv4' : 'ipv6';
  const max = family === 'ipv4' ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return undefined;
  return { text: text.trim(), network, prefix, family };
}

export function isValidCidr(text: string): boolean {
  return parseCidr(text) !== undefined;
}

export interface IpAllowList {
  readonly entries: readonly Cidr[];
  /** The entry that contains `ip`, or undefined (also for anything that is not an IP address). */
  match(ip: string): Cidr | undefined;
}

/** Throws on an invalid entry: lists come from validated config, so a bad one is a programming error. */
export function createIpAllowList(cidrs: readonly string[]): IpAllowList {
  const entries = cidrs.map((text) => {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`"${text}" is not an IPv4/IPv6 address or CIDR`);
    const list = new BlockList();
    list.addSubnet(cidr.network, cidr.prefix, cidr.family);
    return { cidr, list };
  });
  return {
    entries: entries.map((e) => e.cidr),
    match(value) {
      const ip = normalizeIp(value);
      if (!ip) return undefined;
      const family = isIP(ip) === 4 ? 'ipv4' : 'ipv6';
      return entries.find((e) => e.cidr.family === family && e.list.check(ip, family))?.cidr;
    },
  };
}

export interface SourceIpCheck {
  ip: string;
  mode: IpCheckMode;
  /** `not-checked` only in mode `off`. */
  verdict: 'allowed' | 'denied' | 'not-checked';
  /** The allow-list entry that matched. */
  matched?: string;
  /** True when the request must be refused (denied in mode `enforce`). */
  reject: boolean;
}

export function checkSourceIp(ip: string, list: IpAllowList, mode: IpCheckMode): SourceIpCheck {
  if (mode === 'off') return { ip, mode, verdict: 'not-checked', reject: false };
  const matched = list.match(ip);
  if (matched) return { ip, mode, verdict: 'allowed', matched: matched.text, reject: false };
  return { ip, mode, verdict: 'denied', reject: mode === 'enforce' };
}
