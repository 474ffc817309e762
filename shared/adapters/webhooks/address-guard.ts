import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may never reach (docs/webhooks.md#safety): a destination URL is partner-supplied,
 * and the relay's network position (a VPC, the instance metadata service) must not be lent to it.
 */
const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, incl. the metadata service 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  refused.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['fd00:ec2::', 32], // the metadata service over IPv6 (inside fc00::/7 already; named for the reader)
  ['64:ff9b::', 96], // NAT64 can carry any IPv4 address
  ['64:ff9b:1::', 48], // NAT64 for local use (RFC 8215): the same
  // Forms that embed an IPv4 address, which a tunnel or translator may deliver to it (::127.0.0.1, a
  // 6to4 2002:7f00:1::, a Teredo address); deprecated, never a partner's endpoint.
  ['::', 96], // IPv4-compatible (::a.b.c.d)
  ['::ffff:0:0:0', 96], // IPv4-translated (RFC 6145)
  ['2002::', 16], // 6to4
  ['2001::', 32], // Teredo
  ['100::', 64], // discard-only
] as const)
  refused.addSubnet(network, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d or ::ffff:XXXX:XXXX) IPv6 address. */
function mappedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted =
    /^(?:0*:)*:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower) ?? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** Whether an IP address is private, loopback, link-local, metadata or otherwise not on the internet. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return refused.check(address, 'ipv4');
  const mapped = mappedIpv4(address);
  if (mapped !== undefined) return refused.check(mapped, 'ipv4');
  return refused.check(address, 'ipv6');
}

export class ForbiddenDestinationAddressError extends Error {
  constructor(host: string, address: string, options?: { cause?: unknown }) {
    super(
      `destination host ${host} resolves to ${address}, a private, loopback, link-local or metadata address: refused`,
      options,
    );
    this.name = 'ForbiddenDestinationAddressError';
  }
}
