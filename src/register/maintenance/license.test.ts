import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalError } from '../../shared/errors.js';
import { maskLicenseKey, normalizeLicenseKey } from './license.js';

test('a license key: groups of letters and digits, 16 to 64 of them, kept in capitals', () => {
  assert.equal(normalizeLicenseKey(' abcd-efgh-ijkl-mnop '), 'ABCD-EFGH-IJKL-MNOP');
  assert.equal(normalizeLicenseKey('A1B2C3D4E5F6G7H8'), 'A1B2C3D4E5F6G7H8');
  const refused = (text: string, code: string): void => {
    assert.throws(() => normalizeLicenseKey(text), (e: unknown) => e instanceof FiscalError && e.code === code, text);
  };
  refused('', '#MISSING_FIELD');
  refused('ABCD-EFGH-IJKL-MNO', '#INVALID_VALUE'); // 15
  refused('ABCD--EFGH-IJKL-MNOP', '#INVALID_VALUE');
  refused('-ABCD-EFGH-IJKL-MNOP', '#INVALID_VALUE');
  refused('ABCD EFGH IJKL MNOP', '#INVALID_VALUE');
  refused('ÄBCD-EFGH-IJKL-MNOP', '#INVALID_VALUE');
  refused('A'.repeat(65), '#INVALID_VALUE');
});

test('a masked key shows only its last four letters and digits', () => {
  assert.equal(maskLicenseKey('ABCD-EFGH-IJKL-MNOP'), '****-****-****-MNOP');
  assert.equal(maskLicenseKey('ABCD-EFGH-IJKL-MNOP-QR'), '****-****-****-**OP-QR');
  assert.equal(maskLicenseKey('A1B2C3D4E5F6G7H8'), '************G7H8');
});
