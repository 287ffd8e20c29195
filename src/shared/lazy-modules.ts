/**
 * Packages that only some routes need, loaded on first use instead of at start: pug and ejs (custom
 * layouts), node-forge (legacy PKCS#12 files), pdfkit (PDF answers) and @peculiar/x509 (making
 * certificates), xml-crypto and @xmldom/xmldom (Croatia's signed requests). Together they took about 300 ms of the start; DESIGN's bar is /state within 1 s.
 * Also undici (the HTTP client of the authorities and the portal: about 55 ms of the start),
 * i18n-iso-countries (country codes of two exports and the e-invoice: about 20 ms) and qrcode (about 17 ms),
 * which a register that reports to no authority, has no portal and asks for none of them never needs.
 */
import { webcrypto } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Ejs from 'ejs';
import type Forge from 'node-forge';
import type PDFKit from 'pdfkit';
import type * as Pug from 'pug';
import type * as X509 from '@peculiar/x509';
import type * as XmlCrypto from 'xml-crypto';
import type * as XmlDom from '@xmldom/xmldom';
import type * as Undici from 'undici';
import type Countries from 'i18n-iso-countries';
import type QRCode from 'qrcode';

const requireHere = createRequire(import.meta.url);

/** A CommonJS package, required on the first call. */
function onFirstUse<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireHere(name) as T);
}

export const pugModule = onFirstUse<typeof Pug>('pug');
export const ejsModule = onFirstUse<typeof Ejs>('ejs');
export const forgeModule = onFirstUse<typeof Forge>('node-forge');
/** xml-crypto and its DOM (the Croatian CIS's signed requests): only a Croatian register needs them. */
export const xmlCryptoModule = onFirstUse<typeof XmlCrypto>('xml-crypto');
export const xmlDomModule = onFirstUse<typeof XmlDom>('@xmldom/xmldom');
/** The HTTP client of the authorities (Croatia, Slovenia, Slovakia) and of the portal. */
export const undiciModule = onFirstUse<typeof Undici>('undici');
/** ISO 3166 country codes (all locales come with the package). */
export const countriesModule = onFirstUse<typeof Countries>('i18n-iso-countries');
/** QR codes (with pngjs): the first receipt, image or Fis_QR answer that shows one loads it. */
export const qrcodeModule = onFirstUse<typeof QRCode>('qrcode');

let pdfkit: Promise<typeof PDFKit> | undefined;

/** pdfkit's PDFDocument class. */
export function pdfDocumentClass(): Promise<typeof PDFKit> {
  pdfkit ??= import('pdfkit').then((m) => m.default);
  return pdfkit;
}

let x509: Promise<typeof X509> | undefined;

/** @peculiar/x509 with node's WebCrypto as its provider (it needs the reflect-metadata polyfill first). */
export function x509Module(): Promise<typeof X509> {
  x509 ??= import('reflect-metadata').then(async () => {
    const m = await import('@peculiar/x509');
    m.cryptoProvider.set(webcrypto as unknown as Crypto);
    return m;
  });
  return x509;
}
