/**
 * The software control unit: its key made once (mode 0600) and kept, its manufacturing number from its key,
 * signatures that openssl verifies with its public key, a key gone: no answer, and never a new unit under a
 * register that signed already.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../../../test/helpers.js';
import { fiscalError } from '../../../shared/testing.js';
import { controlUnitDir, openControlUnit, softwareUnitId, unitPublicKeys } from './control-unit.js';

test('the software control unit signs with its P-256 key; its number and public key are what the export carries', () => {
  const dataDir = tempDir('efr-se-cu-');
  try {
    const unit = openControlUnit(dataDir, 'R/1', true);
    const keyFile = join(controlUnitDir(dataDir, 'R/1'), 'control-unit.key.pem');
    assert.ok(keyFile.includes(join('se', 'R_1')), 'the RN as a folder name');
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    assert.match(unit.id, /^EFRSE[0-9A-F]{12}$/);
    assert.equal(unit.id, softwareUnitId(createPublicKey(unit.publicKeyPem)));
    assert.equal(openControlUnit(dataDir, 'R/1', true).id, unit.id, 'opened again: the same unit');
    assert.deepEqual([...unitPublicKeys(dataDir, 'R/1').keys()], [unit.id]);
    assert.notEqual(openControlUnit(dataDir, 'R2', true).id, unit.id, 'a unit per register');

    const data = Buffer.from('SE1;0;5566778899;K1;2026-11-23;10:00:00;1;normal;1.00;0.80;25.00=0.20');
    const signature = unit.sign(data);
    assert.ok(signature);
    assert.equal(signature.length, 64);
    assert.ok(verify('sha256', data, { key: createPublicKey(unit.publicKeyPem), dsaEncoding: 'ieee-p1363' }, signature));
    // openssl, independently: the DER form of r‖s
    const der = (raw: Buffer): Buffer => {
      const int = (b: Buffer): Buffer => {
        let v = b;
        while (v.length > 1 && v[0] === 0 && ((v[1] ?? 0) & 0x80) === 0) v = v.subarray(1);
        if (((v[0] ?? 0) & 0x80) !== 0) v = Buffer.concat([Buffer.from([0]), v]);
        return Buffer.concat([Buffer.from([2, v.length]), v]);
      };
      const body = Buffer.concat([int(raw.subarray(0, 32)), int(raw.subarray(32))]);
      return Buffer.concat([Buffer.from([0x30, body.length]), body]);
    };
    writeFileSync(join(dataDir, 'pub.pem'), unit.publicKeyPem);
    writeFileSync(join(dataDir, 'data'), data);
    writeFileSync(join(dataDir, 'sig'), der(signature));
    const r = spawnSync('openssl', ['dgst', '-sha256', '-verify', join(dataDir, 'pub.pem'), '-signature', join(dataDir, 'sig'), join(dataDir, 'data')], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);

    // the key gone: the unit does not answer, and is never made again for a register that signed
    rmSync(keyFile);
    assert.equal(unit.available(), false);
    assert.equal(unit.sign(data), undefined);
    assert.equal(fiscalError(() => openControlUnit(dataDir, 'R/1', false)).code, '#DEVICE_FAILED');
    assert.ok(!existsSync(keyFile));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
