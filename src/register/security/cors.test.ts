import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAttributes } from '../profile/attributes.js';
import { corsPolicy, normalizeOrigin } from './cors.js';

test('HttpServer_AllowOrigin: *, the bare flag, lists separated by spaces or commas; false or nothing is off', () => {
  assert.equal(corsPolicy(parseAttributes('Fis_Tot')), undefined);
  assert.equal(corsPolicy(parseAttributes('HttpServer_AllowOrigin=false')), undefined);
  assert.equal(corsPolicy(parseAttributes('HttpServer_AllowOrigin=not-an-origin')), undefined);
  assert.deepEqual(corsPolicy(parseAttributes('HttpServer_AllowOrigin')), { any: true, origins: new Set(), credentials: false });
  assert.deepEqual(corsPolicy(parseAttributes('httpserver_alloworigin=* HttpServer_AllowCredentials')), { any: true, origins: new Set(), credentials: true });
  const list = corsPolicy(parseAttributes('HttpServer_AllowOrigin="https://POS.example/ http://10.0.0.5:8080,https://[::1]:9" HttpServer_AllowCredentials=false'));
  assert.deepEqual(list, { any: false, origins: new Set(['https://pos.example', 'http://10.0.0.5:8080', 'https://[::1]:9']), credentials: false });
  assert.equal(normalizeOrigin('null'), undefined);
  assert.equal(normalizeOrigin('https://a.example/path'), undefined);
});
