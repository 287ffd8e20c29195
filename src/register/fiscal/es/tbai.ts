/**
 * TicketBAI (Araba/Álava, Bizkaia, Gipuzkoa): the TBAI identifier and the QR URL, as pure functions, after
 * the common Basque specification "Código identificativo TicketBAI y código QR" (TicketBAI identifier and
 * QR code): `TBAI-<NIF>-<ddmmyy>-<first 13 characters of the signature value>-<CRC-8>`, and the province's
 * URL with id, s, nf, i and `cr`, the CRC-8 of the URL before `&cr=`. The CRC-8 is the one of Annex 3
 * (polynomial x^8+x^2+x+1, 0x07, initial value 0, not reflected), written as 3 decimal digits.
 */

const TABLE: readonly number[] = (() => {
  const t: number[] = [];
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 0x80 ? ((c << 1) ^ 0x07) & 0xff : (c << 1) & 0xff;
    t.push(c);
  }
  return t;
})();

export function crc8(text: string): number {
  let crc = 0;
  for (const byte of Buffer.from(text, 'utf8')) crc = TABLE[(crc ^ byte) & 0xff] as number;
  return crc;
}

/** The CRC-8 as the specification writes it: three digits, zero-padded. */
export function crc8Text(text: string): string {
  return String(crc8(text)).padStart(3, '0');
}

/** ddmmyy of an ESR date-time. */
export function tbaiDate(localDateTime: string): string {
  return `${localDateTime.slice(8, 10)}${localDateTime.slice(5, 7)}${localDateTime.slice(2, 4)}`;
}

/** The TBAI identifier (39 characters with a 9-character NIF). */
export function tbaiIdentifier(nif: string, ddmmyy: string, signatureValue: string): string {
  const head = `TBAI-${nif}-${ddmmyy}-${signatureValue.slice(0, 13)}-`;
  return `${head}${crc8Text(head)}`;
}

/** Whether an identifier's CRC-8 matches the characters before it. */
export function tbaiIdentifierValid(id: string): boolean {
  const m = /^(TBAI-[^-]+-\d{6}-.{13}-)(\d{3})$/.exec(id);
  return m !== null && crc8Text(m[1] as string) === m[2];
}

export type Province = 'ARABA' | 'BIZKAIA' | 'GIPUZKOA';

/** The QR service of each province (production, test). */
export const TBAI_QR_URL: Readonly<Record<Province, { prod: string; test: string }>> = {
  ARABA: { prod: 'https://ticketbai.araba.eus/tbai/qrtbai/', test: 'https://pruebas-ticketbai.araba.eus/tbai/qrtbai/' },
  BIZKAIA: { prod: 'https://batuz.eus/QRTBAI/', test: 'https://batuz.eus/QRTBAI/' },
  GIPUZKOA: { prod: 'https://tbai.egoitza.gipuzkoa.eus/qr/', test: 'https://tbai.prep.gipuzkoa.eus/qr/' },
};

/** The QR URL: id, s (series, left out when empty), nf (number), i (total), then cr over everything before. */
export function tbaiQrUrl(base: string, q: { id: string; series: string; number: string; total: string }): string {
  const e = encodeURIComponent;
  const url = `${base}?id=${e(q.id)}${q.series ? `&s=${e(q.series)}` : ''}&nf=${e(q.number)}&i=${e(q.total)}`;
  return `${url}&cr=${crc8Text(url)}`;
}

/** Whether a QR URL's cr matches the URL before `&cr=`. */
export function tbaiQrUrlValid(url: string): boolean {
  const at = url.lastIndexOf('&cr=');
  return at > 0 && crc8Text(url.slice(0, at)) === url.slice(at + 4);
}
