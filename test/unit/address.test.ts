import { describe, expect, test } from 'bun:test';
import { classifyAddress, parseIPv4, parseIPv6, parseIp } from '../../src/net/address';

describe('parsing', () => {
  test('IPv4 dotted quads only', () => {
    expect(parseIPv4('0.0.0.0')).toBe(0);
    expect(parseIPv4('255.255.255.255')).toBe(0xffffffff);
    expect(parseIPv4('10.1.2.3')).toBe(0x0a010203);
    for (const bad of ['256.0.0.1', '1.2.3', '1.2.3.4.5', '01.2.3.4', '0x7f.0.0.1', '2130706433', '1.2.3.-4', ' 1.2.3.4', '']) {
      expect(parseIPv4(bad)).toBeNull();
    }
  });

  test('IPv6 text forms', () => {
    expect(parseIPv6('::')).toBe(0n);
    expect(parseIPv6('::1')).toBe(1n);
    expect(parseIPv6('0:0:0:0:0:0:0:1')).toBe(1n);
    expect(parseIPv6('1::')).toBe(1n << 112n);
    expect(parseIPv6('2001:DB8::8:800:200C:417A')).toBe(0x20010db80000000000080800200c417an);
    expect(parseIPv6('::ffff:127.0.0.1')).toBe(0xffff7f000001n);
    expect(parseIPv6('::ffff:7f00:1')).toBe(0xffff7f000001n);
    expect(parseIPv6('fe80::1%eth0')).toBe((0xfe80n << 112n) | 1n);
    for (const bad of ['1:2:3:4:5:6:7', '1:2:3:4:5:6:7:8:9', '1::2::3', '12345::', 'g::1', '::ffff:1.2.3', '::1.2.3.4:5', ':::', '1.2.3.4', 'localhost']) {
      expect(parseIPv6(bad)).toBeNull();
    }
  });

  test('brackets are accepted around IPv6 and names are not addresses', () => {
    expect(parseIp('[::1]')).toEqual({ family: 6, value: 1n });
    expect(parseIp('127.0.0.1')).toEqual({ family: 4, value: 0x7f000001 });
    expect(parseIp('example.com')).toBeNull();
    expect(parseIp('[example.com]')).toBeNull();
  });
});

describe('classification', () => {
  const cases: [string, string][] = [
    // public
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['93.184.216.34', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['169.253.255.255', 'public'],
    ['192.169.0.1', 'public'],
    ['223.255.255.255', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:82b::200e', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['2002:0808:0808::1', 'public'],
    // unspecified, loopback
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    // private (RFC 1918), CGNAT, ULA
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['64:ff9b:1::a00:1', 'private'],
    // link-local and metadata
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fd00:ec2::254', 'metadata'],
    // multicast, broadcast, reserved, documentation
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001::1', 'reserved'], // Teredo
    ['2001:2::1', 'reserved'], // benchmarking
    ['100::1', 'reserved'],
    ['fec0::1', 'reserved'],
    ['4000::1', 'reserved'], // outside 2000::/3
    ['::2', 'reserved'], // IPv4-compatible (deprecated) ::0.0.0.2
  ];
  for (const [ip, cls] of cases) {
    test(`${ip} is ${cls}`, () => expect(classifyAddress(ip)).toBe(cls as ReturnType<typeof classifyAddress>));
  }

  test('IPv6 forms that embed an IPv4 address are judged by that address', () => {
    expect(classifyAddress('::ffff:127.0.0.1')).toBe('loopback');
    expect(classifyAddress('::ffff:7f00:1')).toBe('loopback');
    expect(classifyAddress('[::ffff:169.254.169.254]')).toBe('metadata');
    expect(classifyAddress('::ffff:10.0.0.1')).toBe('private');
    expect(classifyAddress('::ffff:0:10.0.0.1')).toBe('private'); // IPv4-translated
    expect(classifyAddress('64:ff9b::127.0.0.1')).toBe('loopback'); // NAT64
    expect(classifyAddress('64:ff9b::a9fe:a9fe')).toBe('metadata');
    expect(classifyAddress('2002:7f00:0001::1')).toBe('loopback'); // 6to4 around 127.0.0.1
    expect(classifyAddress('2002:c0a8:0101::1')).toBe('private'); // 6to4 around 192.168.1.1
    expect(classifyAddress('::127.0.0.1')).toBe('reserved');
  });

  test('text that is not an IP literal is not classified', () => {
    for (const s of ['localhost', 'example.com', '0x7f000001', '017700000001', '127.1', '', '[::1']) {
      expect(classifyAddress(s)).toBeNull();
    }
  });
});
