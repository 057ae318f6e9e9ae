import assert from 'node:assert/strict';
import { type BlockedRange, blockedRange, isPublicAddress } from './ip-ranges.js';

describe('blockedRange and isPublicAddress', () => {
  const publicAddresses: string[] = [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.15.255.255', // just below 172.16.0.0/12
    '172.32.0.0', // just above it
    '100.63.255.255', // just below CGNAT
    '100.128.0.0', // just above it
    '192.169.0.1',
    '198.20.0.1', // just above benchmarking
    '223.255.255.255', // just below multicast
    '169.255.0.1',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001:82b::200e',
    '2001:db9::1', // just above documentation
    '::ffff:8.8.8.8', // mapped public IPv4
    '::ffff:808:808',
    '64:ff9b::808:808', // NAT64 of a public IPv4
    '2002:808:808::1', // 6to4 of a public IPv4
    '2001:0:808:808::f7f7:f7f7', // Teredo: server 8.8.8.8, client 8.8.8.8
  ];

  for (const ip of publicAddresses) {
    it(`treats ${ip} as public`, () => {
      assert.equal(blockedRange(ip), undefined);
      assert.equal(isPublicAddress(ip), true);
    });
  }

  const blocked: Array<[ip: string, range: BlockedRange]> = [
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['0.1.2.3', 'this-network'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['2001:2::1', 'benchmarking'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fec0::1', 'site-local'],
    ['100::1', 'discard'],
    ['::ffff:127.0.0.1', 'ipv4-mapped'],
    ['::ffff:7f00:1', 'ipv4-mapped'],
    ['0:0:0:0:0:ffff:a00:1', 'ipv4-mapped'],
    ['::ffff:169.254.169.254', 'ipv4-mapped'],
    ['::ffff:0.0.0.0', 'ipv4-mapped'],
    ['::127.0.0.1', 'ipv4-compatible'],
    ['::8.8.8.8', 'ipv4-compatible'],
    ['::a00:1', 'ipv4-compatible'],
    ['64:ff9b::a9fe:a9fe', 'nat64'],
    ['64:ff9b::127.0.0.1', 'nat64'],
    ['64:ff9b::10.0.0.1', 'nat64'],
    ['64:ff9b:1::1', 'reserved'],
    ['2002:7f00:1::1', '6to4'],
    ['2002:a9fe:a9fe::', '6to4'],
    ['2002:c0a8:101::1', '6to4'],
    ['2001:0:a00:1::f7f7:f7f7', 'teredo'], // server 10.0.0.1
    ['2001:0:808:808::80ff:fffe', 'teredo'], // client 127.0.0.1
    ['2001:10::1', 'reserved'],
    ['5f00::1', 'reserved'], // outside global unicast 2000::/3
    ['4000::1', 'reserved'],
    ['not-an-ip', 'invalid'],
    ['', 'invalid'],
    ['127.1', 'invalid'],
    ['[::1]', 'invalid'],
  ];

  for (const [ip, range] of blocked) {
    it(`refuses ${ip || '(empty)'} as ${range}`, () => {
      assert.equal(blockedRange(ip), range);
      assert.equal(isPublicAddress(ip), false);
    });
  }
});
