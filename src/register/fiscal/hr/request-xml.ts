/**
 * The CIS request of a receipt: `tns:RacunZahtjev` (namespace http://www.apis-it.hr/fin/2012/types/f73) with its
 * Zaglavlje (message id, time of sending) and Racun, signed with an enveloped XML signature as the CIS technical
 * specification prescribes (exclusive c14n, enveloped-signature transform, RSA-SHA1, SHA-1 digest, the reference
 * to the element's Id, KeyInfo with X509Certificate and X509IssuerSerial), inside a SOAP 1.1 envelope. Also reads
 * the CIS answer (RacunOdgovor): the JIR, or its errors.
 */
import { X509Certificate, randomUUID } from 'node:crypto';
import { xmlCryptoModule, xmlDomModule } from '../../../shared/lazy-modules.js';
import { escapeText } from '../../codec/xml-text.js';
import type { AuthorityCertificate, DeliveryResult } from '../authority.js';
import type { Porez, Racun } from './invoice.js';

export const CIS_NS = 'http://www.apis-it.hr/fin/2012/types/f73';
export const SOAP_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
export const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
/** the SOAPAction of the `racuni` operation (FiskalizacijaService.wsdl) */
export const SOAP_ACTION_RACUNI = 'http://e-porezna.porezna-uprava.hr/fiskalizacija/2012/services/FiskalizacijaService/racuni';

const C14N_EXC = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';

/**
 * A text element. The signature's digest is taken over the exclusive canonical form of the parsed request, and
 * xml-crypto writes the signed document from its DOM, so how a character is escaped here does not change what
 * is signed, only that it reads back as itself.
 */
function el(name: string, value: string): string {
  return `<tns:${name}>${escapeText(value)}</tns:${name}>`;
}

function porezXml(p: Porez): string {
  return `<tns:Porez>${el('Stopa', p.stopa)}${el('Osnovica', p.osnovica)}${el('Iznos', p.iznos)}</tns:Porez>`;
}

/** The Racun element, children in the order of RacunType. */
export function racunXml(r: Racun): string {
  const parts = [
    el('Oib', r.oib),
    el('USustPdv', String(r.uSustPdv)),
    el('DatVrijeme', r.datVrijeme),
    el('OznSlijed', r.oznSlijed),
    `<tns:BrRac>${el('BrOznRac', r.brOznRac)}${el('OznPosPr', r.oznPosPr)}${el('OznNapUr', r.oznNapUr)}</tns:BrRac>`,
  ];
  if (r.pdv.length) parts.push(`<tns:Pdv>${r.pdv.map(porezXml).join('')}</tns:Pdv>`);
  if (r.pnp.length) parts.push(`<tns:Pnp>${r.pnp.map(porezXml).join('')}</tns:Pnp>`);
  if (r.iznosOslobPdv !== undefined) parts.push(el('IznosOslobPdv', r.iznosOslobPdv));
  parts.push(el('IznosUkupno', r.iznosUkupno), el('NacinPlac', r.nacinPlac), el('OibOper', r.oibOper), el('ZastKod', r.zastKod), el('NakDost', String(r.nakDost)));
  if (r.paragonBrRac !== undefined) parts.push(el('ParagonBrRac', r.paragonBrRac));
  if (r.specNamj !== undefined) parts.push(el('SpecNamj', r.specNamj));
  return `<tns:Racun>${parts.join('')}</tns:Racun>`;
}

/** The issuer as an RFC 4514 distinguished name, most specific first (`CN=..., O=..., C=HR`). */
function issuerName(leaf: X509Certificate): string {
  return leaf.issuer.split('\n').filter(Boolean).reverse().join(', ');
}

function leafOf(certPem: string): X509Certificate {
  const first = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/.exec(certPem);
  if (!first) throw new Error('the fiscal certificate has no certificate');
  return new X509Certificate(first[0]);
}

/** KeyInfo content: the signing certificate and its issuer and serial number (decimal). */
export function keyInfoXml(cert: AuthorityCertificate): string {
  const leaf = leafOf(cert.certPem);
  const der = leaf.raw.toString('base64');
  return `<X509Data><X509Certificate>${der}</X509Certificate><X509IssuerSerial><X509IssuerName>${escapeText(issuerName(leaf))}</X509IssuerName><X509SerialNumber>${cert.serialDecimal}</X509SerialNumber></X509IssuerSerial></X509Data>`;
}

export interface RequestInput {
  racun: Racun;
  certificate: AuthorityCertificate;
  /** the time of sending, local `YYYY-MM-DDThh:mm:ss` formatted as dd.MM.yyyyTHH:mm:ss by the caller */
  sentAt: string;
  /** IdPoruke; a random UUID when not given */
  messageId?: string;
}

/** The signed RacunZahtjev element (no envelope). */
export function signedRacunZahtjev(input: RequestInput): { xml: string; messageId: string } {
  const messageId = input.messageId ?? randomUUID();
  const id = `RacunZahtjev-${messageId}`;
  const unsigned = `<tns:RacunZahtjev xmlns:tns="${CIS_NS}" Id="${id}"><tns:Zaglavlje>${el('IdPoruke', messageId)}${el('DatumVrijeme', input.sentAt)}</tns:Zaglavlje>${racunXml(input.racun)}</tns:RacunZahtjev>`;
  const sig = new (xmlCryptoModule().SignedXml)({
    privateKey: input.certificate.keyPem,
    publicCert: input.certificate.certPem,
    signatureAlgorithm: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
    canonicalizationAlgorithm: C14N_EXC,
    getKeyInfoContent: () => keyInfoXml(input.certificate),
  });
  sig.addReference({
    xpath: `/*[local-name(.)='RacunZahtjev' and namespace-uri(.)='${CIS_NS}']`,
    transforms: [ENVELOPED, C14N_EXC],
    digestAlgorithm: 'http://www.w3.org/2000/09/xmldsig#sha1',
  });
  sig.computeSignature(unsigned, { location: { reference: `/*[local-name(.)='RacunZahtjev']`, action: 'append' } });
  return { xml: sig.getSignedXml(), messageId };
}

/** The SOAP 1.1 envelope around a signed request. */
export function soapEnvelope(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="${SOAP_NS}"><soapenv:Body>${body}</soapenv:Body></soapenv:Envelope>`;
}

/** The complete SOAP request of one receipt. */
export function cisRequest(input: RequestInput): { xml: string; messageId: string } {
  const signed = signedRacunZahtjev(input);
  return { xml: soapEnvelope(signed.xml), messageId: signed.messageId };
}

/** Thrown for an answer that is not a CIS answer, or a CIS error that is worth trying again later (s006). */
export class CisTransientError extends Error {}

function texts(parent: Element, localName: string): string[] {
  return Array.from(parent.getElementsByTagNameNS(CIS_NS, localName)).map((e) => (e.textContent ?? '').trim());
}

/**
 * Reads the CIS answer to a RacunZahtjev: the JIR (accepted), or its errors (refused: the first error's code,
 * all messages). The system error s006 and an answer without either throw CisTransientError: the receipt is
 * delivered again later.
 */
export function parseCisAnswer(xml: string): DeliveryResult {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new CisTransientError('the CIS answer carries a DOCTYPE');
  let doc: Document;
  try {
    doc = new (xmlDomModule().DOMParser)({ errorHandler: { warning: () => undefined, error: (m: string) => { throw new Error(m); }, fatalError: (m: string) => { throw new Error(m); } } }).parseFromString(xml, 'text/xml') as unknown as Document;
  } catch (e) {
    throw new CisTransientError(`the CIS answer is not XML: ${(e as Error).message}`);
  }
  const answer = doc.getElementsByTagNameNS(CIS_NS, 'RacunOdgovor')[0];
  if (!answer) {
    const fault = doc.getElementsByTagNameNS(SOAP_NS, 'Fault')[0];
    const reason = fault ? (fault.getElementsByTagName('faultstring')[0]?.textContent ?? 'SOAP fault') : 'no RacunOdgovor';
    throw new CisTransientError(`the CIS answer is not a RacunOdgovor: ${reason.trim()}`);
  }
  const errors = Array.from(answer.getElementsByTagNameNS(CIS_NS, 'Greska')).map((g) => ({
    code: texts(g, 'SifraGreske')[0] ?? '',
    message: texts(g, 'PorukaGreske')[0] ?? '',
  }));
  if (errors.length) {
    if (errors.some((e) => e.code === 's006')) throw new CisTransientError(`CIS s006: ${errors.map((e) => e.message).join('; ')}`);
    return { ok: false, code: errors[0]?.code ?? '', message: errors.map((e) => `${e.code} ${e.message}`.trim()).join('; ') };
  }
  const jir = texts(answer, 'Jir')[0];
  if (!jir) throw new CisTransientError('the CIS answer has neither a JIR nor errors');
  return { ok: true, id: jir };
}
