/**
 * The operator's outbound allow list (`OUTBOUND_ALLOW`): hosts that outbound requests may reach even
 * though they resolve to a non-public address. Entries are a host name or IP, either with `:port`,
 * or a CIDR block:
 *
 *   OUTBOUND_ALLOW=hooks.internal,127.0.0.1:8080,[::1]:9000,10.20.0.0/16
 */
import { inCidr, parseIp, type ParsedIp } from './address';

type Entry =
  | { kind: 'name'; name: string; port: number | null }
  | { kind: 'ip'; ip: ParsedIp; port: number | null }
  | { kind: 'cidr'; net: ParsedIp; bits: number };

const NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

/** Lower-cased, without brackets or a trailing dot, as host names are compared. */
export function normalizeHost(host: string): string {
  const h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) return h.slice(1, -1);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

function parsePort(text: string, entry: string): number {
  const n = Number(text);
  if (!/^[0-9]{1,5}$/.test(text) || n < 1 || n > 65535) throw new Error(`"${entry}" has an invalid port`);
  return n;
}

function parseHostEntry(host: string, port: number | null, entry: string): Entry {
  const ip = parseIp(host);
  if (ip) return { kind: 'ip', ip, port };
  const name = normalizeHost(host);
  if (!NAME.test(name)) throw new Error(`"${entry}" is not a host name, IP, host:port or CIDR`);
  return { kind: 'name', name, port };
}

/** One entry; throws an Error naming the entry when it is malformed. */
export function parseAllowEntry(raw: string): Entry {
  const entry = raw.trim();
  if (entry.includes('/')) {
    const [addr = '', bitsText = ''] = entry.split('/');
    const net = parseIp(addr);
    const bits = Number(bitsText);
    const max = net?.family === 4 ? 32 : 128;
    if (!net || !/^[0-9]{1,3}$/.test(bitsText) || bits > max) throw new Error(`"${entry}" is not a valid CIDR block`);
    return { kind: 'cidr', net, bits };
  }
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(entry);
  if (bracketed) {
    const host = bracketed[1] ?? '';
    if (!parseIp(host)) throw new Error(`"${entry}" has brackets around something that is not an IPv6 address`);
    return parseHostEntry(host, bracketed[2] === undefined ? null : parsePort(bracketed[2], entry), entry);
  }
  const colons = entry.split(':').length - 1;
  if (colons === 1) {
    const [host = '', port = ''] = entry.split(':');
    return parseHostEntry(host, parsePort(port, entry), entry);
  }
  // No colon: a name or IPv4 address. Several: a bare IPv6 address (no port; use brackets for one).
  return parseHostEntry(entry, null, entry);
}

/** A parsed allow list. */
export class AllowList {
  private constructor(private readonly entries: readonly Entry[]) {}

  /** Parses every entry; throws on the first malformed one. */
  static parse(raw: readonly string[]): AllowList {
    return new AllowList(raw.filter((e) => e.trim() !== '').map(parseAllowEntry));
  }

  static readonly none = new AllowList([]);

  /** This list plus more entries (e.g. the node's own receiver). */
  with(raw: readonly string[]): AllowList {
    return new AllowList([...this.entries, ...AllowList.parse(raw).entries]);
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * Whether a connection to `address` (an IP), reached through the URL host `host` on `port`, is
   * allowed regardless of the address's class.
   */
  allows(host: string, port: number, address: string): boolean {
    const name = normalizeHost(host);
    const ip = parseIp(address);
    return this.entries.some((e) => {
      if (e.kind === 'cidr') return ip !== null && inCidr(ip, e.net, e.bits);
      if (e.port !== null && e.port !== port) return false;
      if (e.kind === 'name') return e.name === name;
      return ip !== null && ip.family === e.ip.family && ip.value === e.ip.value;
    });
  }
}
