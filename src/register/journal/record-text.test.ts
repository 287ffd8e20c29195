import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { packRecordText, unpackRecordText } from './record-text.js';

const receipt = JSON.stringify({
  _: 'Tra', SQ: '101', RN: 'def', TS: '2026-11-28T06:38:26', BC: 'sale',
  ESR: {
    TL: '1', TT: '28', T: '13.25',
    PosA: [
      { _: 'Pos', PN: '1', Dsc: 'Crème brûlée', TaxG: 'B', Qty: '1', Pri: '5.90', Amt: '5.90' },
      { _: 'Pos', PN: '2', Dsc: 'Pizza "Diavola"', TaxG: 'A', Qty: '1', Pri: '7.35', Amt: '7.35' },
    ],
    PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: '13.25' }],
    TaxA: [
      { _: 'Tax', TaxG: 'A', Prc: '20.00', Net: '6.13', TAmt: '1.22', Amt: '7.35' },
      { _: 'Tax', TaxG: 'B', Prc: '10.00', Net: '5.36', TAmt: '0.54', Amt: '5.90' },
    ],
    D: '2026-11-28T06:38:26', TN: '2',
  },
  Fis: { D: '2026-11-28T06:38:26', FN: '101' },
});

test('a record text comes back exactly, non-ASCII and escapes included', () => {
  for (const text of [receipt, '{}', '{"_":"log","SQ":"1","Msg":"\\u0000 ümlaut € 😀"}', 'x'.repeat(100_000)]) {
    assert.equal(unpackRecordText(packRecordText(text)), text);
  }
});

test('records are written with the dictionary marker; raw deflate cannot start with it, so the forms are told apart', () => {
  const packed = packRecordText(receipt);
  assert.equal(packed[0], 0x06);
  // block type 11 is reserved in deflate: zlib refuses a stream that starts so
  assert.throws(() => inflateRawSync(packed));
  assert.throws(() => inflateRawSync(Buffer.from([0x07, 0x00])));
});

test('records written as plain raw deflate (journals of earlier versions) are read as they are', () => {
  for (const level of [1, 3, 9]) assert.equal(unpackRecordText(deflateRawSync(receipt, { level })), receipt);
});

test('the dictionary makes an ordinary receipt smaller than deflate level 3 without it', () => {
  const packed = packRecordText(receipt).length;
  const plain = deflateRawSync(receipt, { level: 3 }).length;
  assert.ok(packed < plain * 0.85, `${packed} B with the dictionary, ${plain} B without`);
});
