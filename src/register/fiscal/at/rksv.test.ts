import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { chainValue, compactJws, decryptTurnover, encryptTurnover, formatAmount, machineCode, parseAmount, parseMachineCode, qrText, signingInput, FAILED } from './rksv.js';

const KEY = Buffer.from('WQRtiiya3hYh/Uz44Bv3x8ETl1nrH6nCdErn69g5/lU=', 'base64');

test('official values of scenario 1, receipt 1: encrypted turnover counter and chain value', () => {
  assert.equal(encryptTurnover(KEY, 'CASHBOX-DEMO-1', 'CASHBOX-DEMO-1-Receipt-ID-1', 0n), '4r1iIdZGeAQ=');
  assert.equal(chainValue('CASHBOX-DEMO-1'), 'cg8hNU5ihto=');
});

test('the turnover counter decrypts back, negative values and other lengths included', () => {
  for (const [cents, bytes] of [[0n, 8], [123456n, 8], [-5000n, 8], [2n ** 39n - 1n, 5], [-(2n ** 100n), 16]] as const) {
    const enc = encryptTurnover(KEY, 'K1', 'R7', cents, bytes);
    assert.equal(Buffer.from(enc, 'base64').length, bytes);
    assert.equal(decryptTurnover(KEY, 'K1', 'R7', enc), cents);
  }
  assert.throws(() => encryptTurnover(KEY, 'K1', 'R7', 0n, 4));
});

test('amounts use a decimal comma and two decimals', () => {
  assert.equal(formatAmount(0n), '0,00');
  assert.equal(formatAmount(12034n), '120,34');
  assert.equal(formatAmount(-5n), '-0,05');
  assert.equal(parseAmount('-120,34'), -12034n);
});

test('code, JWS and QR text fit together; the signature verifies over the signing input', () => {
  const fields = { zda: 'AT0', cashboxId: 'K1', receiptId: '17', date: '2026-11-21T10:00:00', amounts: [1000n, 0n, 0n, 250n, 0n] as const, turnover: 'AAAAAAA=', certSerial: '0A1B', chain: chainValue('K1') };
  const code = machineCode(fields);
  assert.equal(code, `_R1-AT0_K1_17_2026-11-21T10:00:00_10,00_0,00_0,00_2,50_0,00_AAAAAAA=_0A1B_${chainValue('K1')}`);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const sig = sign('sha256', Buffer.from(signingInput(code)), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  const jws = compactJws(code, sig);
  const [h, p, s] = jws.split('.');
  assert.equal(Buffer.from(h ?? '', 'base64url').toString(), '{"alg":"ES256"}');
  assert.ok(verify('sha256', Buffer.from(`${h}.${p}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(s ?? '', 'base64url')));
  const qr = qrText(jws);
  assert.equal(qr, `${code}_${sig.toString('base64')}`);
  assert.deepEqual(parseMachineCode(qr).amounts, [1000n, 0n, 0n, 250n, 0n]);
  assert.equal(Buffer.from(compactJws(code, undefined).split('.')[2] ?? '', 'base64url').toString(), FAILED);
});

