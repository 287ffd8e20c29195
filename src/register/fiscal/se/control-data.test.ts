/** The control data's parts: the control code, the organisation number and its check digit, the VAT per rate. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { base32 } from '../../../shared/base32.js';
import { fiscalError } from '../../../shared/testing.js';
import type { Obj } from '../../codec/index.js';
import { controlCodeOf, controlData, luhnValid, orgNrOf, printedOrgNr, registerIdOf, vatOf } from './control-data.js';

test('the control code: 32 characters, the base32 of the first 20 bytes of the SHA-256 of the signature', () => {
  const signature = Buffer.alloc(64, 7).toString('base64');
  const code = controlCodeOf(signature);
  assert.match(code, /^[A-Z2-7]{32}$/);
  assert.equal(code, base32(createHash('sha256').update(Buffer.alloc(64, 7)).digest().subarray(0, 20)));
  assert.notEqual(controlCodeOf(Buffer.alloc(64, 8).toString('base64')), code);
});

test('the organisation number: Cmp.Org with or without the dash (or the 16 prefix), else the VAT number; its check digit', () => {
  assert.ok(luhnValid('5566778899'));
  assert.ok(!luhnValid('5566778898'));
  assert.equal(orgNrOf({ Cmp: { Org: '556677-8899' } }), '5566778899');
  assert.equal(orgNrOf({ Cmp: { Org: '5566778899' } }), '5566778899');
  assert.equal(orgNrOf({ Cmp: { Org: '16556677-8899' } }), '5566778899');
  assert.equal(orgNrOf({ Cmp: { TaxId: 'SE556677889901' } }), '5566778899');
  assert.equal(orgNrOf({ Cmp: { Org: '556677-8899', TaxId: 'SE202100548901' } }), '5566778899', 'Org first');
  assert.equal(printedOrgNr('5566778899'), '556677-8899');
  assert.equal(fiscalError(() => orgNrOf({ Cmp: {} })).code, '#MISSING_FIELD');
  assert.equal(fiscalError(() => orgNrOf({ Cmp: { TaxId: 'DE123456789' } })).code, '#MISSING_FIELD');
  const bad = fiscalError(() => orgNrOf({ Cmp: { Org: '556677-8898' } }));
  assert.equal(bad.code, '#INVALID_VALUE');
  assert.equal(fiscalError(() => orgNrOf({ Cmp: { Org: '55667-8899' } })).code, '#INVALID_VALUE');
});

test('the control data line and the VAT per rate as the export writes it', () => {
  const esr: Obj = {
    TaxA: [
      { _: 'Tax', TaxG: 'A', Prc: '25', Amt: '40.00', TAmt: '8.00', Net: '32.00' },
      { _: 'Tax', TaxG: 'C', Prc: '6', Amt: '10.60', Net: '10.00' },
      { _: 'Tax', TaxG: 'X', TTY: 'CT', Prc: '1', Amt: '0.10' },
    ],
  };
  assert.equal(vatOf(esr), '25.00=8.00,6.00=0.60', 'TAmt, else Amt minus Net; a consumption tax is no VAT');
  assert.equal(vatOf({}), '');
  assert.equal(
    controlData({ prev: '0', orgNr: '5566778899', registerId: 'K1', date: '2026-11-23', time: '10:00:00', nr: '1', type: 'normal', amntIn: '50.60', amntEx: '42.00', vat: '25.00=8.00,6.00=0.60' }),
    'SE1;0;5566778899;K1;2026-11-23;10:00:00;1;normal;50.60;42.00;25.00=8.00,6.00=0.60',
  );
  assert.equal(registerIdOf({ cfg: { Trm: { TT: 'K1' } }, rn: 'def' }), 'K1');
  assert.equal(registerIdOf({ cfg: {}, rn: 'def' }), 'def');
});
