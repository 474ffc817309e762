/**
 * The allow-list check behind `403 FORBIDDEN IP`: exact addresses (IPv4 or IPv6, compared as written)
 * and IPv4 CIDR ranges.
 */

function ipv4ToNumber(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    n = n * 256 + Number(part);
  }
  return n;
}

function matches(ip: string, entry: string): boolean {
  const [range, bitsText] = entry.trim().split('/');
  if (bitsText === undefined) return ip.toLowerCase() === (range ?? '').toLowerCase();
  const bits = Number(bitsText);
  const addr = ipv4ToNumber(ip);
  const net = ipv4ToNumber(range ?? '');
  if (addr === undefined || net === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32)
    return false;
  // Division instead of bit shifts: JavaScript shifts are 32-bit signed and `x >> 32` is `x`.
  const size = 2 ** (32 - bits);
  return Math.floor(addr / size) === Math.floor(net / size);
}

export function ipAllowed(ip: string, allowList: readonly string[]): boolean {
  return allowList.some((entry) => matches(ip, entry));
}
