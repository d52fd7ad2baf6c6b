import { describe, expect, it } from '@jest/globals';
import { connectionKey } from './client-address.js';

describe('connectionKey', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(connectionKey('127.0.0.1')).toBe('127.0.0.1');
    expect(connectionKey('203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv6 address under its /64, written in full or compressed', () => {
    const network = '2001:db8:85a3:8d3::/64';
    expect(connectionKey('2001:0db8:85a3:08d3:1319:8a2e:0370:7344')).toBe(network);
    expect(connectionKey('2001:db8:85a3:8d3:1319:8a2e:370:7344')).toBe(network);
    expect(connectionKey('2001:DB8:85A3:8D3::1')).toBe(network);
    expect(connectionKey('2001:db8:85a3:8d3::')).toBe(network);
    expect(connectionKey('2001:db8:85a3:8d4::1')).toBe('2001:db8:85a3:8d4::/64');
  });

  it('writes the network as RFC 5952 does: zeros compressed, the longest run first', () => {
    expect(connectionKey('2001:db8::1')).toBe('2001:db8::/64');
    expect(connectionKey('2001:0:0:1:0:0:0:1')).toBe('2001:0:0:1::/64');
    expect(connectionKey('::1')).toBe('::/64');
    expect(connectionKey('::')).toBe('::/64');
    expect(connectionKey('1:2:3:4:5:6:7:8')).toBe('1:2:3:4::/64');
  });

  it('keeps the zone of a link-local address: each interface is a network of its own', () => {
    expect(connectionKey('fe80::1%eth0')).toBe('fe80::/64%eth0');
    expect(connectionKey('fe80::abcd:1%eth0')).toBe('fe80::/64%eth0');
    expect(connectionKey('fe80::1%eth1')).toBe('fe80::/64%eth1');
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address, dotted or in hex', () => {
    expect(connectionKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(connectionKey('::FFFF:203.0.113.7')).toBe('203.0.113.7');
    expect(connectionKey('0:0:0:0:0:ffff:cb00:7107')).toBe('203.0.113.7');
    expect(connectionKey('::ffff:7f00:1')).toBe('127.0.0.1');
  });

  it('does not mistake other addresses with a dotted tail for mapped ones', () => {
    expect(connectionKey('64:ff9b::192.0.2.33')).toBe('64:ff9b::/64');
    expect(connectionKey('::192.0.2.33')).toBe('::/64');
  });

  it('keeps anything that is not an address as its own key', () => {
    expect(connectionKey('')).toBe('');
    expect(connectionKey('not-an-address')).toBe('not-an-address');
    expect(connectionKey('2001:db8::g')).toBe('2001:db8::g');
  });
});
