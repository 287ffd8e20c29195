/**
 * The published examples of the Basque specification "Código identificativo TicketBAI y código QR"
 * (TicketBAI identifier and QR code; common to the three provincial treasuries): the identifier
 * TBAI-00000006Y-251019-btFpwP8dcLGAF-237 (NIF 00000006Y, 25-10-2019, signature value starting btFpwP8dcLGAF,
 * CRC-8 237) and the QR URL https://batuz.eus/QRTBAI/?id=...&s=T&nf=27174&i=4.70&cr=007.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TBAI_QR_URL, crc8, crc8Text, tbaiDate, tbaiIdentifier, tbaiIdentifierValid, tbaiQrUrl, tbaiQrUrlValid } from './tbai.js';

const ID = 'TBAI-00000006Y-251019-btFpwP8dcLGAF-237';

test('the specification example identifier, with its CRC-8 237', () => {
  assert.equal(crc8Text('TBAI-00000006Y-251019-btFpwP8dcLGAF-'), '237');
  // only the first 13 characters of the signature value are used
  assert.equal(tbaiIdentifier('00000006Y', tbaiDate('2019-10-25T12:00:00'), 'btFpwP8dcLGAFmoreSignatureBytes=='), ID);
  assert.equal(ID.length, 39);
  assert.ok(tbaiIdentifierValid(ID));
  assert.ok(!tbaiIdentifierValid('TBAI-00000006Y-251019-btFpwP8dcLGAF-238'));
  assert.ok(!tbaiIdentifierValid('TBAI-00000006Y-251019-btFpwP8dcLGAX-237'));
});

test('the specification example QR URL (Bizkaia), with cr 007 over the URL before &cr=', () => {
  const url = tbaiQrUrl(TBAI_QR_URL.BIZKAIA.prod, { id: ID, series: 'T', number: '27174', total: '4.70' });
  assert.equal(url, 'https://batuz.eus/QRTBAI/?id=TBAI-00000006Y-251019-btFpwP8dcLGAF-237&s=T&nf=27174&i=4.70&cr=007');
  assert.ok(tbaiQrUrlValid(url));
  assert.ok(!tbaiQrUrlValid(url.replace('i=4.70', 'i=4.71')));
});

test('CRC-8 (poly 0x07, init 0): the standard check value of "123456789" is 0xF4', () => {
  assert.equal(crc8('123456789'), 0xf4);
  assert.equal(crc8Text(''), '000');
});
