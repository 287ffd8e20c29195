import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAttributes, settingsOf } from './profile/attributes.js';
import { BODY_IDLE_TIMEOUT_MS, HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, listenTarget, receiveTimeoutsOf } from './listener.js';

const def = (attributes: string) => settingsOf(parseAttributes(attributes));

test('listen target: HttpServer_Port over --port; a bad value is ignored; HttpServer_IPv4 makes :: IPv4 only', () => {
  assert.deepEqual(listenTarget(def(''), { port: 5618 }), { port: 5618, host: '0.0.0.0' });
  assert.deepEqual(listenTarget(def('HttpServer_Port=8080'), { port: 5618, host: '127.0.0.1' }), { port: 8080, host: '127.0.0.1' });
  for (const bad of ['0', '65536', 'http', '-1', '80.5']) assert.equal(listenTarget(def(`HttpServer_Port=${bad}`), { port: 5618 }).port, 5618, bad);
  assert.equal(listenTarget(def('HttpServer_IPv4'), { port: 1, host: '::' }).host, '0.0.0.0');
  assert.equal(listenTarget(def('HttpServer_IPv4'), { port: 1, host: '::1' }).host, '127.0.0.1', 'loopback stays loopback');
  assert.equal(listenTarget(def('HttpServer_IPv4'), { port: 1, host: '::ffff:10.0.0.5' }).host, '10.0.0.5');
  assert.equal(listenTarget(def('HttpServer_IPv4'), { port: 1, host: 'fd00::5' }).host, 'fd00::5', 'no IPv4 counterpart: unchanged');
  assert.equal(listenTarget(def('HttpServer_IPv4=false'), { port: 1, host: '::' }).host, '::');
  assert.equal(listenTarget(def('HttpServer_IPv4'), { port: 1, host: '127.0.0.1' }).host, '127.0.0.1', 'an IPv4 address stays');
  assert.equal(listenTarget(def(''), { port: 1, host: '::' }).host, '::');
});

test('receive timeouts: defaults, overridden by the environment; 0 or nonsense keeps the default', () => {
  assert.deepEqual(receiveTimeoutsOf({}), { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, bodyIdleTimeout: BODY_IDLE_TIMEOUT_MS });
  assert.deepEqual(receiveTimeoutsOf({ EFR_HEADERS_TIMEOUT_MS: '1000', EFR_REQUEST_TIMEOUT_MS: ' 2500 ', EFR_BODY_IDLE_TIMEOUT_MS: '700' }), { headersTimeout: 1000, requestTimeout: 2500, bodyIdleTimeout: 700 });
  for (const bad of ['0', '-5', '1e3', 'soon', '']) assert.equal(receiveTimeoutsOf({ EFR_REQUEST_TIMEOUT_MS: bad }).requestTimeout, REQUEST_TIMEOUT_MS, bad);
});
