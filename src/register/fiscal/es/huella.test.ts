/**
 * AEAT's published worked examples, reproduced exactly.
 * Fingerprints: AEAT, "Veri*Factu - Detalle de las especificaciones técnicas para la generación de la huella o
 * hash de los registros de facturación" (v0.1.2, section 6: a first registration record, a chained
 * registration record and a cancellation record, with their resulting SHA-256 values).
 * QR: AEAT, "Características del QR y especificaciones del servicio de cotejo o remisión de información por
 * parte del receptor de la factura" (section 4: nif 89890001K, numserie 12345678&G33, fecha 01-01-2024,
 * importe 241.4 on the preproduction host).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NO_VERIFACTU_QR_URL, NO_VERIFACTU_QR_URL_TEST, VERIFACTU_QR_URL_TEST, aeatDate, altaString, anulacionString, huella, madridDateTime, verifactuQrUrl } from './huella.js';

const CASE1 = 'IDEmisorFactura=89890001K&NumSerieFactura=12345678/G33&FechaExpedicionFactura=01-01-2024&TipoFactura=F1&CuotaTotal=12.35&ImporteTotal=123.45&Huella=&FechaHoraHusoGenRegistro=2024-01-01T19:20:30+01:00';
const HASH1 = '3C464DAF61ACB827C65FDA19F352A4E3BDC2C640E9E9FC4CC058073F38F12F60';
const HASH2 = 'F7B94CFD8924EDFF273501B01EE5153E4CE8F259766F88CF6ACB8935802A2B97';
const HASH3 = '177547C0D57AC74748561D054A9CEC14B4C4EA23D1BEFD6F2E69E3A388F90C68';

test('AEAT example 1: the first registration record (empty Huella)', () => {
  const s = altaString({ idEmisorFactura: '89890001K', numSerieFactura: '12345678/G33', fechaExpedicionFactura: '01-01-2024', tipoFactura: 'F1', cuotaTotal: '12.35', importeTotal: '123.45', huellaAnterior: '', fechaHoraHusoGenRegistro: '2024-01-01T19:20:30+01:00' });
  assert.equal(s, CASE1);
  assert.equal(huella(s), HASH1);
});

test('AEAT example 2: a registration record chained to example 1', () => {
  const s = altaString({ idEmisorFactura: '89890001K', numSerieFactura: '12345679/G34', fechaExpedicionFactura: '01-01-2024', tipoFactura: 'F1', cuotaTotal: '12.35', importeTotal: '123.45', huellaAnterior: HASH1, fechaHoraHusoGenRegistro: '2024-01-01T19:20:35+01:00' });
  assert.equal(huella(s), HASH2);
});

test('AEAT example 3: the cancellation of example 2, chained to it', () => {
  const s = anulacionString({ idEmisorFacturaAnulada: '89890001K', numSerieFacturaAnulada: '12345679/G34', fechaExpedicionFacturaAnulada: '01-01-2024', huellaAnterior: HASH2, fechaHoraHusoGenRegistro: '2024-01-01T19:20:40+01:00' });
  assert.equal(s, `IDEmisorFacturaAnulada=89890001K&NumSerieFacturaAnulada=12345679/G34&FechaExpedicionFacturaAnulada=01-01-2024&Huella=${HASH2}&FechaHoraHusoGenRegistro=2024-01-01T19:20:40+01:00`);
  assert.equal(huella(s), HASH3);
});

test('a changed amount changes the fingerprint; spaces around values do not', () => {
  const base = { idEmisorFactura: '89890001K', numSerieFactura: '12345678/G33', fechaExpedicionFactura: '01-01-2024', tipoFactura: 'F1', cuotaTotal: '12.35', importeTotal: '123.45', huellaAnterior: '', fechaHoraHusoGenRegistro: '2024-01-01T19:20:30+01:00' };
  assert.notEqual(huella(altaString({ ...base, importeTotal: '123.46' })), HASH1);
  assert.equal(huella(altaString({ ...base, numSerieFactura: ' 12345678/G33 ' })), HASH1);
});

test('AEAT QR example: the series is URL-encoded (& as %26)', () => {
  assert.equal(
    verifactuQrUrl(VERIFACTU_QR_URL_TEST, { nif: '89890001K', numserie: '12345678&G33', fecha: '01-01-2024', importe: '241.4' }),
    'https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=89890001K&numserie=12345678%26G33&fecha=01-01-2024&importe=241.4',
  );
  assert.match(verifactuQrUrl(VERIFACTU_QR_URL_TEST, { nif: 'B1', numserie: 'T1-1/7', fecha: '01-01-2024', importe: '1.00' }), /numserie=T1-1%2F7&/);
});

test('the QR of a system that does not send its records: AEAT ValidarQRNoVerifactu, same parameters', () => {
  assert.equal(
    verifactuQrUrl(NO_VERIFACTU_QR_URL, { nif: '89890001K', numserie: '12345678&G33', fecha: '01-01-2024', importe: '241.4' }),
    'https://www2.agenciatributaria.gob.es/wlpl/TIKE-CONT/ValidarQRNoVerifactu?nif=89890001K&numserie=12345678%26G33&fecha=01-01-2024&importe=241.4',
  );
  assert.equal(NO_VERIFACTU_QR_URL_TEST, 'https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQRNoVerifactu');
});

test('dates: dd-mm-yyyy, and Europe/Madrid with its winter and summer offsets', () => {
  assert.equal(aeatDate('2026-11-21T10:00:00'), '21-11-2026');
  assert.equal(madridDateTime(new Date('2024-01-01T18:20:30Z')), '2024-01-01T19:20:30+01:00');
  assert.equal(madridDateTime(new Date('2024-07-01T18:20:30.900Z')), '2024-07-01T20:20:30+02:00');
  // the night the clocks go back: 02:30 happens twice, once at +02:00 and once at +01:00
  assert.equal(madridDateTime(new Date('2024-10-27T00:30:00Z')), '2024-10-27T02:30:00+02:00');
  assert.equal(madridDateTime(new Date('2024-10-27T01:30:00Z')), '2024-10-27T02:30:00+01:00');
});
