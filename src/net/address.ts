/**
 * IP address parsing and classification for outbound requests. Only `public` addresses may be
 * reached by user-supplied URLs; everything else (loopback, private, link-local, cloud metadata,
 * multicast, documentation and reserved ranges, and IPv6 forms that embed such an IPv4 address) is
 * refused unless an operator allows it. Pure: no I/O.
 */

export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link-local'
  | 'metadata'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'reserved';

/** A parsed address: IPv4 as a 32-bit number, IPv6 as a 128-bit bigint. */
export type ParsedIp = { family: 4; value: number } | { family: 6; value: bigint };

const V4_PART = /^(0|[1-9][0-9]{0,2})$/;
const V6_GROUP = /^[0-9a-f]{1,4}$/i;

/** Strict dotted-quad only: shorthand and octal forms are not addresses here (they are names). */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const p of parts) {
    if (!V4_PART.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

/** RFC 4291 text forms, including `::` compression and a trailing dotted quad; a zone id is ignored. */
export function parseIPv6(input: string): bigint | null {
  let text = input;
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  if (!text.includes(':')) return null;
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const v4 = parseIPv4(last);
    if (v4 === null) return null;
    text = `${text.slice(0, lastColon + 1)}${Math.floor(v4 / 65536).toString(16)}:${(v4 % 65536).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (!V6_GROUP.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = groups(halves[0] ?? '');
  const tail = halves.length === 2 ? groups(halves[1] ?? '') : [];
  if (head === null || tail === null) return null;
  const compressed = halves.length === 2;
  if (compressed ? head.length + tail.length > 7 : head.length !== 8) return null;
  const words = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  let value = 0n;
  for (const w of words) value = (value << 16n) | BigInt(w);
  return value;
}

/** An IP literal (brackets allowed around IPv6), or null when the text is a host name. */
export function parseIp(text: string): ParsedIp | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const v4 = parseIPv4(bare);
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = parseIPv6(bare);
  return v6 === null ? null : { family: 6, value: v6 };
}

export const isIpLiteral = (text: string): boolean => parseIp(text) !== null;

/** Whether `ip` lies in `net`/`bits` of the same family. */
export function inCidr(ip: ParsedIp, net: ParsedIp, bits: number): boolean {
  if (ip.family === 4 && net.family === 4) {
    const size = 2 ** (32 - bits);
    return Math.floor(ip.value / size) === Math.floor(net.value / size);
  }
  if (ip.family === 6 && net.family === 6) {
    const shift = BigInt(128 - bits);
    return ip.value >> shift === net.value >> shift;
  }
  return false;
}

type Range = readonly [net: ParsedIp, bits: number, cls: AddressClass];

function range(cidr: string, cls: AddressClass): Range {
  const [addr = '', bits = ''] = cidr.split('/');
  const net = parseIp(addr);
  if (!net) throw new Error(`bad built-in range ${cidr}`);
  return [net, Number(bits), cls];
}

// First match wins, so the narrower ranges (metadata) come before the ranges that contain them.
const V4_RANGES: readonly Range[] = [
  range('169.254.169.254/32', 'metadata'), // AWS, GCP, Azure, OpenStack instance metadata
  range('169.254.170.2/32', 'metadata'), // AWS ECS task metadata
  range('100.100.100.200/32', 'metadata'), // Alibaba Cloud metadata
  range('168.63.129.16/32', 'metadata'), // Azure WireServer: a public-looking address that is host-internal
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'shared'), // carrier-grade NAT (RFC 6598)
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'reserved'), // IETF protocol assignments
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', 'reserved'), // former 6to4 relay anycast
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'reserved'), // benchmarking
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('255.255.255.255/32', 'broadcast'),
  range('240.0.0.0/4', 'reserved'),
];

const V6_RANGES: readonly Range[] = [
  range('fd00:ec2::254/128', 'metadata'), // AWS instance metadata over IPv6
  range('64:ff9b:1::/48', 'private'), // local-use NAT64 (RFC 8215)
  range('100::/64', 'reserved'), // discard-only
  range('2001:db8::/32', 'documentation'),
  range('2001::/23', 'reserved'), // IETF protocol assignments, Teredo (hides an IPv4 address), benchmarking
  range('3fff::/20', 'documentation'),
  range('fc00::/7', 'private'), // unique local
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'reserved'), // deprecated site-local
  range('ff00::/8', 'multicast'),
];

const GLOBAL_UNICAST_V6 = range('2000::/3', 'public');
const V4_MASK = 0xffffffffn;

function classifyV4(value: number): AddressClass {
  const ip: ParsedIp = { family: 4, value };
  for (const [net, bits, cls] of V4_RANGES) if (inCidr(ip, net, bits)) return cls;
  return 'public';
}

function classifyV6(value: bigint): AddressClass {
  if (value === 0n) return 'unspecified';
  if (value === 1n) return 'loopback';
  const high96 = value >> 32n;
  const low32 = Number(value & V4_MASK);
  // Forms that carry an IPv4 address are judged by that address: a stack or a NAT64 gateway will
  // deliver to it, so ::ffff:127.0.0.1 must be as unreachable as 127.0.0.1.
  if (high96 === 0xffffn) return classifyV4(low32); // IPv4-mapped ::ffff:a.b.c.d
  if (high96 === 0xffff0000n) return classifyV4(low32); // IPv4-translated ::ffff:0:a.b.c.d
  if (high96 === 0x64ff9b0000000000000000n) return classifyV4(low32); // NAT64 64:ff9b::a.b.c.d
  if (high96 === 0n) return 'reserved'; // deprecated IPv4-compatible ::a.b.c.d
  if (value >> 112n === 0x2002n) {
    // 6to4: the IPv4 address sits in bits 16–48.
    const embedded = classifyV4(Number((value >> 80n) & V4_MASK));
    if (embedded !== 'public') return embedded;
  }
  const ip: ParsedIp = { family: 6, value };
  for (const [net, bits, cls] of V6_RANGES) if (inCidr(ip, net, bits)) return cls;
  const [gnet, gbits] = GLOBAL_UNICAST_V6;
  // Only 2000::/3 is allocated for global unicast; anything else is not a place to send webhooks.
  return inCidr(ip, gnet, gbits) ? 'public' : 'reserved';
}

/** The class of an IP literal, or null when `text` is not one. */
export function classifyAddress(text: string): AddressClass | null {
  const ip = parseIp(text);
  if (!ip) return null;
  return ip.family === 4 ? classifyV4(ip.value) : classifyV6(ip.value);
}
