import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GuessLimit, clientKey } from './guess-limit.js';
import { parseTrustProxy, trustProxyOption } from '../trust-proxy.js';

test('GuessLimit: misses per address and window; the window ends; the oldest addresses are dropped', () => {
  let now = 1_000_000;
  const l = new GuessLimit({ limit: 3, windowMs: 60_000, maxAddresses: 2 }, () => now);
  assert.equal(l.blocked('a'), false);
  l.miss('a');
  l.miss('a');
  assert.equal(l.blocked('a'), false, '2 of 3');
  l.miss('a');
  assert.equal(l.blocked('a'), true, '3 of 3');
  assert.equal(l.blocked('b'), false, 'another address is not');
  assert.equal(l.retryAfter('a'), 60);
  now += 59_000;
  assert.equal(l.blocked('a'), true);
  assert.equal(l.retryAfter('a'), 1);
  now += 1_000;
  assert.equal(l.blocked('a'), false, 'a new window');
  assert.equal(l.retryAfter('a'), 0);
  for (let i = 0; i < 3; i++) l.miss('b');
  l.miss('c');
  l.miss('d'); // beyond maxAddresses: b (the oldest) is dropped
  assert.equal(l.blocked('b'), false);
});

test('clientKey: IPv4 as it is (also IPv4-mapped), IPv6 by its /64 however it is written', () => {
  assert.equal(clientKey('192.0.2.7'), '192.0.2.7');
  assert.equal(clientKey('::ffff:192.0.2.7'), '192.0.2.7');
  assert.equal(clientKey('2001:db8:0:1::1'), '2001:db8:0:1::/64');
  assert.equal(clientKey('2001:0DB8:0000:0001:abcd:ef01:2345:6789'), '2001:db8:0:1::/64', 'one /64: the same key');
  assert.equal(clientKey('2001:db8::1:0:0:1'), '2001:db8:0:0::/64');
  assert.equal(clientKey('2001:db8:0:2::1'), '2001:db8:0:2::/64', 'another /64');
  assert.equal(clientKey('::1'), '0:0:0:0::/64');
  assert.equal(clientKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(clientKey('64:ff9b::192.0.2.7'), '64:ff9b:0:0::/64');
  const l = new GuessLimit({ limit: 2 });
  for (const a of ['2001:db8:0:1::1', '2001:db8:0:1:ffff::2']) l.miss(clientKey(a));
  assert.equal(l.blocked(clientKey('2001:db8:0:1::99')), true, 'a new address of the same /64 is blocked too');
  assert.equal(l.blocked(clientKey('2001:db8:0:2::1')), false);
});

test('parseTrustProxy: off by default; true; a list of addresses and CIDR ranges; anything else throws', () => {
  assert.equal(parseTrustProxy(undefined), undefined);
  assert.equal(parseTrustProxy(''), undefined);
  assert.equal(parseTrustProxy('false'), undefined);
  assert.equal(parseTrustProxy('true'), true);
  assert.deepEqual(parseTrustProxy('10.0.0.5, 10.1.0.0/16,2001:db8::/32'), ['10.0.0.5', '10.1.0.0/16', '2001:db8::/32']);
  assert.throws(() => parseTrustProxy('proxy.example'), /invalid trust-proxy/);
  assert.throws(() => parseTrustProxy('10.0.0.0/33'), /invalid trust-proxy/);
  assert.deepEqual(trustProxyOption('off'), {});
  assert.deepEqual(trustProxyOption('10.0.0.5'), { trustProxy: ['10.0.0.5'] });
});
