/** A country's per-register folder: what a backup carries of it and what a restore admits. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerFolderFiles } from './country-files.js';

test('a register\'s own folder: the whole <folder>/<RN>/ tree and nothing of another register or country', () => {
  const files = registerFolderFiles('se');
  const reg = { rn: 'R/1', cfg: {} };
  assert.deepEqual(files.paths('/data', { ...reg, stateSegments: new Set(), attributes: new Map() }), [{ path: 'se/R_1' }]);
  assert.ok(files.admits('se/R_1/control-unit.key.pem', reg));
  assert.ok(files.admits('se/R_1/units/EFRSE0123456789AB.pub.pem', reg));
  assert.ok(!files.admits('se/R_1', reg), 'the folder itself is no file');
  assert.ok(!files.admits('se/R_2/control-unit.key.pem', reg));
  assert.ok(!files.admits('de/R_1/tse.key.pem', reg));
  assert.equal(files.ownFolder?.('se/R_1/units/x.pem'), 'se/R_1');
  assert.equal(files.ownFolder?.('de/R_1/tse.key.pem'), undefined);
  assert.equal(files.ownFolder?.('se/'), undefined);
});
