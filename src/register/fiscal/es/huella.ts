/**
 * VeriFactu (AEAT): the record fingerprint ("huella") and the QR URL, as pure functions.
 * The fingerprint is the SHA-256, in uppercase hex, of the record's fields written `name=value` and joined
 * by `&`, in the order of AEAT's "Detalle de las especificaciones técnicas para la generación de la huella o
 * hash de los registros de facturación"; the first record of a chain has an empty `Huella=`.
 */
import { createHash } from 'node:crypto';

/** The fields of a registration record (RegistroAlta) that enter its fingerprint. */
export interface AltaFields {
  idEmisorFactura: string;
  numSerieFactura: string;
  /** dd-mm-yyyy */
  fechaExpedicionFactura: string;
  tipoFactura: string;
  cuotaTotal: string;
  importeTotal: string;
  /** the previous record's fingerprint; '' for the first record */
  huellaAnterior: string;
  /** yyyy-mm-ddThh:mm:ss+hh:mm */
  fechaHoraHusoGenRegistro: string;
}

/** The fields of a cancellation record (RegistroAnulacion) that enter its fingerprint. */
export interface AnulacionFields {
  idEmisorFacturaAnulada: string;
  numSerieFacturaAnulada: string;
  fechaExpedicionFacturaAnulada: string;
  huellaAnterior: string;
  fechaHoraHusoGenRegistro: string;
}

// AEAT: values are taken without leading or trailing spaces
const v = (s: string): string => s.trim();

export function altaString(f: AltaFields): string {
  return [
    `IDEmisorFactura=${v(f.idEmisorFactura)}`,
    `NumSerieFactura=${v(f.numSerieFactura)}`,
    `FechaExpedicionFactura=${v(f.fechaExpedicionFactura)}`,
    `TipoFactura=${v(f.tipoFactura)}`,
    `CuotaTotal=${v(f.cuotaTotal)}`,
    `ImporteTotal=${v(f.importeTotal)}`,
    `Huella=${v(f.huellaAnterior)}`,
    `FechaHoraHusoGenRegistro=${v(f.fechaHoraHusoGenRegistro)}`,
  ].join('&');
}

export function anulacionString(f: AnulacionFields): string {
  return [
    `IDEmisorFacturaAnulada=${v(f.idEmisorFacturaAnulada)}`,
    `NumSerieFacturaAnulada=${v(f.numSerieFacturaAnulada)}`,
    `FechaExpedicionFacturaAnulada=${v(f.fechaExpedicionFacturaAnulada)}`,
    `Huella=${v(f.huellaAnterior)}`,
    `FechaHoraHusoGenRegistro=${v(f.fechaHoraHusoGenRegistro)}`,
  ].join('&');
}

/** SHA-256 of the UTF-8 text, uppercase hex (64 characters). */
export function huella(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').toUpperCase();
}

/** AEAT's date form dd-mm-yyyy of an ESR date-time (or date) yyyy-mm-dd... */
export function aeatDate(localDateTime: string): string {
  return `${localDateTime.slice(8, 10)}-${localDateTime.slice(5, 7)}-${localDateTime.slice(0, 4)}`;
}

const MADRID = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/Madrid', hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
});

/**
 * An instant as the wall-clock time of Europe/Madrid with its offset (+01:00 in winter, +02:00 in summer),
 * whatever the time zone of the machine: FechaHoraHusoGenRegistro.
 */
export function madridDateTime(at: Date): string {
  const parts = Object.fromEntries(MADRID.formatToParts(at).map((p) => [p.type, p.value]));
  const wall = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
  const seconds = Math.floor(at.getTime() / 1000) * 1000;
  const offsetMin = Math.round((Date.parse(`${wall}Z`) - seconds) / 60000);
  const sign = offsetMin >= 0 ? '+' : '-';
  const a = Math.abs(offsetMin);
  return `${wall}${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

/**
 * AEAT's QR service ("cotejo") for records sent to the AEAT (VERI*FACTU systems), production and test
 * (preproducción). Not used by this service, which does not send its records; kept for AEAT's published
 * QR example (huella.test.ts).
 */
export const VERIFACTU_QR_URL = 'https://www2.agenciatributaria.gob.es/wlpl/TIKE-CONT/ValidarQR';
export const VERIFACTU_QR_URL_TEST = 'https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR';
/** AEAT's QR service for systems that do not send their records ("No VERI*FACTU"): the one this service prints. */
export const NO_VERIFACTU_QR_URL = 'https://www2.agenciatributaria.gob.es/wlpl/TIKE-CONT/ValidarQRNoVerifactu';
export const NO_VERIFACTU_QR_URL_TEST = 'https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQRNoVerifactu';

/** The QR URL: nif, numserie, fecha (dd-mm-yyyy), importe, each URL-encoded, in this order. */
export function verifactuQrUrl(base: string, q: { nif: string; numserie: string; fecha: string; importe: string }): string {
  const e = encodeURIComponent;
  return `${base}?nif=${e(q.nif)}&numserie=${e(q.numserie)}&fecha=${e(q.fecha)}&importe=${e(q.importe)}`;
}
