/**
 * The ZOI reproduced independently with openssl (`openssl dgst -sha256 -sign key.pem | md5sum`) for the same
 * key and fields, and the 60-digit QR code checked against values worked out by hand.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { makeFursTestCertificate } from '../../../../test/fake-furs.js';
import { controlDigit, qrDateTime, zoiQrCode } from './qr.js';
import { zoiDateTime, zoiInput, zoiOf } from './zoi.js';

const FIELDS = { taxNumber: '12345678', issued: '2015-08-15T10:13:32', number: '11', premise: 'BP101', device: 'B1', amount: '19.15' };

test('the signed text: tax number, dd.MM.yyyy HH:mm:ss, number, premise, device, amount, no separators', () => {
  assert.equal(zoiInput(FIELDS), '1234567815.08.2015 10:13:3211BP101B119.15');
  assert.equal(zoiDateTime(new Date(2026, 0, 2, 3, 4, 5)), '02.01.2026 03:04:05');
});

test('the ZOI equals openssl dgst -sha256 -sign | md5sum for the same key and fields', () => {
  const cert = makeFursTestCertificate();
  try {
    for (const f of [FIELDS, { ...FIELDS, amount: '-3.00', number: '12345', issued: '2026-12-31T23:59:59' }]) {
      const sig = spawnSync('openssl', ['dgst', '-sha256', '-sign', cert.keyFile], { input: zoiInput(f) });
      assert.equal(sig.status, 0, String(sig.stderr));
      const md5 = spawnSync('md5sum', [], { input: sig.stdout, encoding: 'utf8' });
      const expected = md5.stdout.split(' ')[0];
      assert.match(expected ?? '', /^[0-9a-f]{32}$/);
      assert.equal(zoiOf(cert.keyPem, f), expected);
    }
    assert.notEqual(zoiOf(cert.keyPem, FIELDS), zoiOf(cert.keyPem, { ...FIELDS, amount: '19.16' }));
  } finally {
    rmSync(cert.dir, { recursive: true, force: true });
  }
});

/** Hex to decimal by schoolbook arithmetic on a digit array (independent of BigInt). */
function hexToDecimal(hex: string): string {
  let digits = [0];
  for (const h of hex) {
    let carry = parseInt(h, 16);
    digits = digits.map((d) => {
      const v = d * 16 + carry;
      carry = Math.floor(v / 10);
      return v % 10;
    });
    while (carry > 0) {
      digits.push(carry % 10);
      carry = Math.floor(carry / 10);
    }
  }
  return digits.reverse().join('');
}

test('the 60-digit code: ZOI in decimal (39 digits), tax number, yyMMddHHmmss, control digit', () => {
  const zoi = 'a7e5f55e1dbb48b799268e1a6d8618a3';
  const code = zoiQrCode(zoi, '12345678', '2015-08-13T10:13:32');
  // worked out by hand: 0xa7e5...18a3 = 223175087923687075112234402528973166755; digit sum of the 59 digits ends in 9
  assert.equal(code, '223175087923687075112234402528973166755123456781508131013329');
  assert.equal(code.length, 60);
  const body = hexToDecimal(zoi).padStart(39, '0') + '12345678' + '150813101332';
  const sum = [...body].reduce((a, c) => a + Number(c), 0);
  assert.equal(code, body + String(sum % 10));
  // leading zeros of a small ZOI, and the year 2099
  assert.equal(zoiQrCode('0000000000000000000000000000000f', '10000000', '2099-12-31T23:59:59'), '000000000000000000000000000000000000015100000009912312359595');
  assert.equal(qrDateTime(new Date(2026, 1, 3, 4, 5, 6)), '260203040506');
  assert.equal(controlDigit('99'), '8');
  assert.throws(() => zoiQrCode('xyz', '12345678', '2015-08-13T10:13:32'));
});
