/**
 * Log messages of a TSE as BSI TR-03151 defines them (LogMessage):
 *
 *   LogMessage ::= SEQUENCE {
 *     version             INTEGER (2),
 *     certifiedDataType   OBJECT IDENTIFIER,          -- transaction, system or audit log
 *     certifiedData       ANY DEFINED BY certifiedDataType OPTIONAL,  -- context-tagged elements
 *     serialNumber        OCTET STRING,               -- SHA-256 of the uncompressed public key
 *     signatureAlgorithm  SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY OPTIONAL },
 *     seAuditData         OCTET STRING OPTIONAL,      -- audit logs only
 *     signatureCounter    INTEGER,
 *     logTime             CHOICE { utcTime UTCTime, generalizedTime GeneralizedTime, unixTime INTEGER },
 *     signatureValue      OCTET STRING }               -- plain R‖S
 *
 * The signature covers the DER encodings of every element before signatureValue, one after the other.
 * Our TSE writes unixTime and ecdsa-plain-SHA256; the parser reads what certified TSEs write as well.
 */
import * as asn1js from 'asn1js';

export const OID = {
  transactionLog: '0.4.0.127.0.7.3.7.1.1',
  systemLog: '0.4.0.127.0.7.3.7.1.2',
  auditLog: '0.4.0.127.0.7.3.7.1.3',
  ecdsaPlainSha256: '0.4.0.127.0.7.1.1.4.1.3',
} as const;

/** The hash of each ecdsa-plain signature algorithm of BSI TR-03111 that a log message may name. */
const PLAIN_ECDSA_HASH: Readonly<Record<string, string>> = {
  '0.4.0.127.0.7.1.1.4.1.1': 'sha1',
  '0.4.0.127.0.7.1.1.4.1.2': 'sha224',
  '0.4.0.127.0.7.1.1.4.1.3': 'sha256',
  '0.4.0.127.0.7.1.1.4.1.4': 'sha384',
  '0.4.0.127.0.7.1.1.4.1.5': 'sha512',
  '0.4.0.127.0.7.1.1.4.1.8': 'sha3-224',
  '0.4.0.127.0.7.1.1.4.1.9': 'sha3-256',
  '0.4.0.127.0.7.1.1.4.1.10': 'sha3-384',
  '0.4.0.127.0.7.1.1.4.1.11': 'sha3-512',
};

/** The hash a signature algorithm OID signs with; undefined for an algorithm we cannot verify. */
export const hashOfAlgorithm = (oid: string): string | undefined => PLAIN_ECDSA_HASH[oid];

/** A log time (unix seconds) as ISO 8601 UTC, as the receipt's code and DSFinV-K show it. */
export const logTimeIso = (unix: bigint): string => new Date(Number(unix) * 1000).toISOString();

export type Operation = 'StartTransaction' | 'UpdateTransaction' | 'FinishTransaction';

export interface TransactionData {
  operationType: Operation;
  clientId: string;
  processData: Buffer;
  processType: string;
  transactionNumber: bigint;
}

/** A system log's certified data (TR-03151 SystemLogMessage). */
export interface SystemLogData {
  /** [0] PrintableString, e.g. initialize, updateTime, selfTest, exportData */
  operationType: string;
  /** [1] OCTET STRING: the DER of the operation's own structure (system-operations.ts) */
  systemOperationData: Buffer;
  /** [2] OCTET STRING OPTIONAL */
  additionalInternalData?: Buffer;
}

export const der = (e: asn1js.BaseBlock): Buffer => Buffer.from(e.toBER(false));

/** A context-specific, implicitly tagged primitive ([tag] IMPLICIT ...). */
export function implicit(tag: number, bytes: Uint8Array): asn1js.Primitive {
  return new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: tag }, valueHex: bytes });
}

/** The contents octets of an INTEGER (two's complement, shortest form). */
export function intBytes(v: bigint): Uint8Array {
  return new Uint8Array(asn1js.Integer.fromBigInt(v).valueBlock.valueHexView);
}

/** The value of INTEGER contents octets. */
export function bigOf(bytes: ArrayBuffer | Uint8Array): bigint {
  const b = Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
  if (b.length === 0) return 0n;
  return BigInt.asIntN(b.length * 8, BigInt(`0x${b.toString('hex')}`));
}

/** The certified data of a transaction log message (TR-03151 TransactionData). */
function transactionElements(t: TransactionData): asn1js.BaseBlock[] {
  return [
    implicit(0, Buffer.from(t.operationType, 'ascii')),
    implicit(1, Buffer.from(t.clientId, 'ascii')),
    implicit(2, t.processData),
    implicit(3, Buffer.from(t.processType, 'ascii')),
    implicit(5, intBytes(t.transactionNumber)),
  ];
}

function systemElements(s: SystemLogData): asn1js.BaseBlock[] {
  return [
    implicit(0, Buffer.from(s.operationType, 'ascii')),
    implicit(1, s.systemOperationData),
    ...(s.additionalInternalData ? [implicit(2, s.additionalInternalData)] : []),
  ];
}

export interface Envelope {
  certifiedDataType: string;
  serialNumber: Buffer;
  signatureCounter: bigint;
  /** seconds since 1970 */
  signatureCreationTime: bigint;
}

function elements(env: Envelope, certified: asn1js.BaseBlock[], seAuditData?: Buffer): asn1js.BaseBlock[] {
  return [
    new asn1js.Integer({ value: 2 }),
    new asn1js.ObjectIdentifier({ value: env.certifiedDataType }),
    ...certified,
    new asn1js.OctetString({ valueHex: env.serialNumber }),
    new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: OID.ecdsaPlainSha256 })] }),
    ...(seAuditData ? [new asn1js.OctetString({ valueHex: seAuditData })] : []),
    asn1js.Integer.fromBigInt(env.signatureCounter),
    asn1js.Integer.fromBigInt(env.signatureCreationTime),
  ];
}

const signed = (items: asn1js.BaseBlock[]): Buffer => Buffer.concat(items.map(der));
const message = (items: asn1js.BaseBlock[], signature: Buffer): Buffer => der(new asn1js.Sequence({ value: [...items, new asn1js.OctetString({ valueHex: signature })] }));

/** The bytes the TSE signs: the DER encodings of every element before signatureValue, one after the other. */
export function signedPart(env: Envelope, t: TransactionData): Buffer {
  return signed(elements(env, transactionElements(t)));
}

export function transactionLog(env: Envelope, t: TransactionData, signature: Buffer): Buffer {
  return message(elements(env, transactionElements(t)), signature);
}

export function systemSignedPart(env: Envelope, s: SystemLogData): Buffer {
  return signed(elements(env, systemElements(s)));
}

export function systemLog(env: Envelope, s: SystemLogData, signature: Buffer): Buffer {
  return message(elements(env, systemElements(s)), signature);
}

/** An audit log message: no certified data; seAuditData after signatureAlgorithm. */
export function auditSignedPart(env: Envelope, seAuditData: Buffer): Buffer {
  return signed(elements(env, [], seAuditData));
}

export function auditLog(env: Envelope, seAuditData: Buffer, signature: Buffer): Buffer {
  return message(elements(env, [], seAuditData), signature);
}

export interface ParsedLog {
  version: bigint;
  certifiedDataType: string;
  /** the certified data's context-tagged elements by tag number (their contents octets) */
  certified: ReadonlyMap<number, Buffer>;
  operationType?: string;
  clientId?: string;
  processData?: Buffer;
  processType?: string;
  transactionNumber?: bigint;
  /** a system log's systemOperationData [1] */
  systemOperationData?: Buffer;
  /** a system log's additionalInternalData [2] */
  additionalInternalData?: Buffer;
  /** seAuditData of an audit log */
  auditData?: Buffer;
  serialNumber: Buffer;
  signatureAlgorithm: string;
  signatureCounter: bigint;
  /** logTime as unix seconds, whatever CHOICE the TSE wrote */
  signatureCreationTime: bigint;
  /** which CHOICE of logTime: unixTime, utcTime or generalizedTime */
  logTimeFormat: 'unixTime' | 'utcTime' | 'generalizedTime';
  signatureValue: Buffer;
  /** the encodings of every element before signatureValue, as they are in the message */
  signed: Buffer;
}

const contents = (e: asn1js.BaseBlock): Buffer => Buffer.from((e as asn1js.Primitive).valueBlock.valueHexView);

/** Decodes a log message (ours, also those older journal records keep, or a certified TSE's); throws on anything that is not one. */
export function parseLog(bytes: Buffer): ParsedLog {
  const { result, offset } = asn1js.fromBER(new Uint8Array(bytes));
  if (offset === -1 || !(result instanceof asn1js.Sequence)) throw new Error(`not a DER SEQUENCE${result.error ? ` (${result.error})` : ''}`);
  if (offset !== bytes.length) throw new Error(`${bytes.length - offset} bytes after the log message`);
  // the signed part is cut out as the bytes between the SEQUENCE's header and signatureValue; in BER's
  // indefinite form the message ends with end-of-contents octets instead, and TR-03151 wants DER anyway
  if (result.lenBlock.isIndefiniteForm) throw new Error('not DER: the SEQUENCE has an indefinite length');
  const items = result.valueBlock.value;
  let i = 0;
  const next = (): asn1js.BaseBlock | undefined => items[i];
  const version = next();
  if (!(version instanceof asn1js.Integer)) throw new Error('no version');
  i += 1;
  const oid = next();
  if (!(oid instanceof asn1js.ObjectIdentifier)) throw new Error('no certifiedDataType');
  i += 1;
  const certifiedDataType = oid.valueBlock.toString();
  const certified = new Map<number, Buffer>();
  for (let e = next(); e && e.idBlock.tagClass === 3; e = next()) {
    certified.set(e.idBlock.tagNumber, e.idBlock.isConstructed ? Buffer.from(e.valueBeforeDecodeView).subarray(e.idBlock.blockLength + e.lenBlock.blockLength) : contents(e));
    i += 1;
  }
  // audit logs in older journal records carry seAuditData before serialNumber; they stay as they were signed
  let auditData: Buffer | undefined;
  if (next() instanceof asn1js.OctetString && items[i + 1] instanceof asn1js.OctetString) {
    auditData = contents(next() as asn1js.BaseBlock);
    i += 1;
  }
  const serial = next();
  if (!(serial instanceof asn1js.OctetString)) throw new Error('no serialNumber');
  i += 1;
  const alg = next();
  if (!(alg instanceof asn1js.Sequence) || !(alg.valueBlock.value[0] instanceof asn1js.ObjectIdentifier)) throw new Error('no signatureAlgorithm');
  i += 1;
  if (next() instanceof asn1js.OctetString && i < items.length - 1) {
    auditData = contents(next() as asn1js.BaseBlock);
    i += 1;
  }
  const counter = next();
  if (!(counter instanceof asn1js.Integer)) throw new Error('no signatureCounter');
  i += 1;
  const time = next();
  let signatureCreationTime: bigint;
  let logTimeFormat: ParsedLog['logTimeFormat'];
  if (time instanceof asn1js.Integer) {
    signatureCreationTime = bigOf(time.valueBlock.valueHexView);
    logTimeFormat = 'unixTime';
  } else if (time instanceof asn1js.GeneralizedTime || time instanceof asn1js.UTCTime) {
    signatureCreationTime = BigInt(Math.floor(time.toDate().getTime() / 1000));
    logTimeFormat = time instanceof asn1js.UTCTime ? 'utcTime' : 'generalizedTime';
  } else {
    throw new Error('no logTime');
  }
  i += 1;
  const sig = next();
  if (!(sig instanceof asn1js.OctetString) || i !== items.length - 1) throw new Error('no signatureValue as the last element');
  const header = result.idBlock.blockLength + result.lenBlock.blockLength;
  const out: ParsedLog = {
    version: bigOf(version.valueBlock.valueHexView),
    certifiedDataType,
    certified,
    serialNumber: contents(serial),
    signatureAlgorithm: (alg.valueBlock.value[0] as asn1js.ObjectIdentifier).valueBlock.toString(),
    signatureCounter: bigOf(counter.valueBlock.valueHexView),
    signatureCreationTime,
    logTimeFormat,
    signatureValue: contents(sig),
    signed: bytes.subarray(header, bytes.length - sig.blockLength),
  };
  if (auditData) out.auditData = auditData;
  const text = (tag: number): string | undefined => certified.get(tag)?.toString('latin1');
  const op = text(0);
  if (op !== undefined) out.operationType = op;
  if (certifiedDataType === OID.transactionLog) {
    const clientId = text(1);
    if (clientId !== undefined) out.clientId = clientId;
    const pd = certified.get(2);
    if (pd) out.processData = pd;
    const pt = text(3);
    if (pt !== undefined) out.processType = pt;
    const tn = certified.get(5);
    if (tn) out.transactionNumber = bigOf(tn);
  } else if (certifiedDataType === OID.systemLog) {
    const data = certified.get(1);
    if (data) out.systemOperationData = data;
    const extra = certified.get(2);
    if (extra) out.additionalInternalData = extra;
  }
  return out;
}
