import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parseAttributes, settingsOf } from '../profile/attributes.js';
import { fileFolder, udpTarget } from './start.js';

const def = (attributes: string) => settingsOf(parseAttributes(attributes));

test('UDP: only on UdpServer_Port (1-65535), never by default on the HTTP port; the HTTP host', () => {
  assert.equal(udpTarget(def(''), { port: 5618 }), undefined, 'no UdpServer_Port: no UDP');
  assert.equal(udpTarget(def('HttpServer_Port=8080'), { port: 5618 }), undefined, 'the HTTP port alone opens no UDP');
  assert.deepEqual(udpTarget(def('UdpServer_Port=5620'), { port: 5618, host: '::' }), { port: 5620, host: '::' });
  assert.deepEqual(udpTarget(def('HttpServer_Port=8080 UdpServer_Port=9000'), { port: 5618 }), { port: 9000, host: '0.0.0.0' });
  assert.deepEqual(udpTarget(def('UdpServer_Port=5618'), { port: 5618, host: '127.0.0.1' }), { port: 5618, host: '127.0.0.1' }, 'the HTTP port when named');
  for (const bad of ['0', '65536', 'udp', '-1', '']) assert.equal(udpTarget(def(`UdpServer_Port=${bad}`), { port: 5618 }), undefined, bad);
  assert.equal(udpTarget(def('HttpServer_IPv4 UdpServer_Port=9000'), { port: 1, host: '::' })?.host, '0.0.0.0', 'HttpServer_IPv4 as for HTTP');
});

test('file interface folder: the data folder, or FileWatch_path (relative to the data folder) as a network folder', () => {
  assert.deepEqual(fileFolder(def(''), '/data'), { folder: '/data', network: false });
  assert.deepEqual(fileFolder(def('FileWatch_path=/mnt/pos'), '/data'), { folder: '/mnt/pos', network: true });
  assert.deepEqual(fileFolder(def('FileWatch_path=share'), '/data'), { folder: join('/data', 'share'), network: true });
  assert.deepEqual(fileFolder(def('FileWatch_path'), '/data'), { folder: '/data', network: false }, 'no value: the data folder');
});
