/**
 * The eKasa request of a receipt: `ekasa:RegisterReceiptRequest` (namespace http://financnasprava.sk/ekasa/schema/v2)
 * with its Header (message id, time of sending, sending count, software id), ReceiptData (seller, cash
 * register, number, type, times, amount, items) and ValidationCode (PKP, OKP), in the body of a SOAP 1.1
 * envelope signed with the register's authentication certificate by WS-Security (X.509 token profile): the
 * certificate as a BinarySecurityToken, an XML signature in the Security header over the body (exclusive c14n,
 * RSA-SHA256, SHA-256 digest, the reference to the body's wsu:Id), and KeyInfo pointing at the token. Also reads
 * eKasa's answer (RegisterReceiptResponse): the receipt id (UID), or its error. docs/countries/sk.md.
 */
import { X509Certificate, randomUUID } from 'node:crypto';
import { xmlCryptoModule, xmlDomModule } from '../../../shared/lazy-modules.js';
import { escapeAttr, escapeText } from '../../codec/xml-text.js';
import { formatWithOffset } from '../../esr/datetime.js';
import type { AuthorityCertificate, DeliveryResult } from '../authority.js';
import { ekasaDateTime } from './ekasa-date.js';
import type { SellerIds } from './ids.js';
import type { EkasaItem, EkasaReceipt } from './receipt.js';

export const EKASA_NS = 'http://financnasprava.sk/ekasa/schema/v2';
export const SOAP_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
export const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
export const WSSE_NS = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
export const WSU_NS = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';
const X509_TOKEN = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3';
const BASE64_BINARY = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary';
const C14N_EXC = 'http://www.w3.org/2001/10/xml-exc-c14n#';
export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
export const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';

/** What the header of one sending carries. */
export interface RequestHeader {
  /** the message id (a new UUID per sending) */
  uuid: string;
  /** the time of sending */
  sentAt: Date;
  /** 1 for the online sending, more for a later one */
  sendingCount: number;
  swId: string;
}

export interface RequestInput {
  header: RequestHeader;
  seller: SellerIds;
  cashRegisterCode: string;
  receipt: EkasaReceipt;
  /** when the receipt was registered (the record's TS), local `YYYY-MM-DDThh:mm:ss` */
  created: string;
  pkp: string;
  okp: string;
}

function attrs(pairs: ReadonlyArray<readonly [string, string | undefined]>): string {
  return pairs.filter((p): p is readonly [string, string] => p[1] !== undefined).map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join('');
}

function itemXml(i: EkasaItem): string {
  return `<ekasa:Item${attrs([
    ['Name', i.name], ['ItemType', i.itemType], ['Quantity', i.quantity], ['VatRate', i.vatRate], ['Price', i.price],
    ['ReferenceReceiptId', i.referenceReceiptId], ['VoucherNumber', i.voucherNumber], ['SpecialRegulation', i.specialRegulation],
    ['SellerId', i.sellerId], ['SellerIdType', i.sellerIdType],
  ])}/>`;
}

/** The RegisterReceiptRequest element (not signed: the envelope's WS-Security signature covers the body). */
export function registerReceiptRequestXml(input: RequestInput): string {
  const { header, receipt: r } = input;
  const head = `<ekasa:Header${attrs([['Uuid', header.uuid], ['RequestDate', formatWithOffset(header.sentAt)], ['SendingCount', String(header.sendingCount)], ['SwId', header.swId], ['Exception', 'false']])}/>`;
  const data = attrs([
    ['ReceiptType', r.receiptType], ['CashRegisterCode', input.cashRegisterCode], ['Dic', input.seller.dic], ['IcDph', input.seller.icDph], ['Ico', input.seller.ico],
    ['ReceiptNumber', r.receiptNumber], ['ParagonNumber', r.paragonNumber], ['InvoiceNumber', r.invoiceNumber], ['Paragon', r.paragonNumber !== undefined ? 'true' : 'false'],
    ['IssueDate', ekasaDateTime(r.issued)], ['CreateDate', ekasaDateTime(input.created)], ['Amount', r.amount],
    ['CustomerId', r.customerId], ['CustomerIdType', r.customerIdType],
  ]);
  const items = r.items.length ? `<ekasa:Items>${r.items.map(itemXml).join('')}</ekasa:Items>` : '';
  const codes = `<ekasa:ValidationCode><ekasa:PKP digest="SHA256" cipher="RSA2048" encoding="base64">${escapeText(input.pkp)}</ekasa:PKP><ekasa:OKP digest="SHA1" encoding="base16">${escapeText(input.okp)}</ekasa:OKP></ekasa:ValidationCode>`;
  return `<ekasa:RegisterReceiptRequest xmlns:ekasa="${EKASA_NS}">${head}<ekasa:ReceiptData${data}>${items}</ekasa:ReceiptData>${codes}</ekasa:RegisterReceiptRequest>`;
}

function leafOf(certPem: string): X509Certificate {
  const first = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/.exec(certPem);
  if (!first) throw new Error('the authentication certificate has no certificate');
  return new X509Certificate(first[0]);
}

/** The SOAP 1.1 request of one receipt, signed with WS-Security; the message id is the header's Uuid. */
export function ekasaRequest(input: RequestInput, certificate: AuthorityCertificate): string {
  const tokenId = `X509-${input.header.uuid}`;
  const bodyId = `Body-${input.header.uuid}`;
  const token = leafOf(certificate.certPem).raw.toString('base64');
  const unsigned = `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="${SOAP_NS}" xmlns:wsu="${WSU_NS}"><soapenv:Header><wsse:Security xmlns:wsse="${WSSE_NS}" soapenv:mustUnderstand="1"><wsse:BinarySecurityToken EncodingType="${BASE64_BINARY}" ValueType="${X509_TOKEN}" wsu:Id="${tokenId}">${token}</wsse:BinarySecurityToken></wsse:Security></soapenv:Header><soapenv:Body wsu:Id="${bodyId}">${registerReceiptRequestXml(input)}</soapenv:Body></soapenv:Envelope>`;
  const sig = new (xmlCryptoModule().SignedXml)({
    privateKey: certificate.keyPem,
    signatureAlgorithm: RSA_SHA256,
    canonicalizationAlgorithm: C14N_EXC,
    getKeyInfoContent: () => `<wsse:SecurityTokenReference xmlns:wsse="${WSSE_NS}"><wsse:Reference URI="#${tokenId}" ValueType="${X509_TOKEN}"/></wsse:SecurityTokenReference>`,
  });
  sig.addReference({ xpath: `//*[local-name(.)='Body' and namespace-uri(.)='${SOAP_NS}']`, transforms: [C14N_EXC], digestAlgorithm: SHA256 });
  sig.computeSignature(unsigned, { prefix: 'ds', location: { reference: `//*[local-name(.)='Security' and namespace-uri(.)='${WSSE_NS}']`, action: 'append' } });
  return sig.getSignedXml();
}

export function newMessageId(): string {
  return randomUUID();
}

/** Thrown for an answer that is not eKasa's, or an eKasa error worth trying again later (-1, its internal error). */
export class EkasaTransientError extends Error {}

/** eKasa's codes of a failure on its side: the receipt is sent again later. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set(['-1']);

/**
 * Reads eKasa's answer to a RegisterReceiptRequest: the receipt id (accepted), or its error (refused: code and
 * message). A transient error code and an answer without either throw EkasaTransientError, and so does an
 * answer whose header names another message than `uuid` (the request's): its receipt id or refusal belongs to
 * another receipt.
 */
export function parseEkasaAnswer(xml: string, uuid?: string): DeliveryResult {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new EkasaTransientError('the eKasa answer carries a DOCTYPE');
  let doc: Document;
  try {
    doc = new (xmlDomModule().DOMParser)({ errorHandler: { warning: () => undefined, error: (m: string) => { throw new Error(m); }, fatalError: (m: string) => { throw new Error(m); } } }).parseFromString(xml, 'text/xml') as unknown as Document;
  } catch (e) {
    throw new EkasaTransientError(`the eKasa answer is not XML: ${(e as Error).message}`);
  }
  const answer = doc.getElementsByTagNameNS(EKASA_NS, 'RegisterReceiptResponse')[0];
  if (!answer) {
    const fault = doc.getElementsByTagNameNS(SOAP_NS, 'Fault')[0];
    const reason = fault ? (fault.getElementsByTagName('faultstring')[0]?.textContent ?? 'SOAP fault') : 'no RegisterReceiptResponse';
    throw new EkasaTransientError(`the eKasa answer is not a RegisterReceiptResponse: ${reason.trim()}`);
  }
  const answered = answer.getElementsByTagNameNS(EKASA_NS, 'Header')[0]?.getAttribute('Uuid');
  if (uuid !== undefined && answered && answered.toLowerCase() !== uuid.toLowerCase()) throw new EkasaTransientError(`the eKasa answer is for message ${answered}, not for ${uuid}`);
  const error = answer.getElementsByTagNameNS(EKASA_NS, 'Error')[0];
  if (error) {
    const code = error.getAttribute('Code') ?? '';
    const message = error.getAttribute('Message') ?? (error.textContent ?? '').trim();
    if (TRANSIENT_CODES.has(code)) throw new EkasaTransientError(`eKasa ${code}: ${message}`);
    return { ok: false, code, message };
  }
  const id = answer.getElementsByTagNameNS(EKASA_NS, 'Receipt')[0]?.getAttribute('Id') ?? '';
  if (!/^O-[0-9A-F]{32}$/i.test(id)) throw new EkasaTransientError(`the eKasa answer has neither a receipt id nor an error${id ? ` (id "${id}")` : ''}`);
  return { ok: true, id };
}
