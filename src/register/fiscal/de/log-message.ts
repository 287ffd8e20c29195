/**
 * Log messages of a TSE as BSI TR-03151 defines them: a DER SEQUENCE of version (2), certifiedDataType
 * (OID of the transaction, system or audit log), the certified data, serialNumber (SHA-256 of the
 * uncompressed public key), signatureAlgorithm, signatureCounter, signatureCreationTime (unixTime) and
 * signatureValue (plain R‖S). The signature covers the concatenated DER encodings of every element
 * before signatureValue.
 */
import * as asn1js from 'asn1js';

export const OID = {
  transactionLog: '0.4.0.127.0.7.3.7.1.1',
  systemLog: '0.4.0.127.0.7.3.7.1.2',
  auditLog: '0.4.0.127.0.7.3.7.1.3',
  ecdsaPlainSha256: '0.4.0.127.0.7.1.1.4.1.3',
} as const;

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

const der = (e: asn1js.BaseBlock): Buffer => Buffer.from(e.toBER(false));

function implicit(tag: number, bytes: Uint8Array): asn1js.Primitive {
  return new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: tag }, valueHex: bytes });
}

function intBytes(v: bigint): Uint8Array {
  return new Uint8Array(asn1js.Integer.fromBigInt(v).valueBlock.valueHexView);
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

export interface Envelope {
  certifiedDataType: string;
  serialNumber: Buffer;
  signatureCounter: bigint;
  /** seconds since 1970 */
  signatureCreationTime: bigint;
}

function elements(env: Envelope, certified: asn1js.BaseBlock[]): asn1js.BaseBlock[] {
  return [
    new asn1js.Integer({ value: 2 }),
    new asn1js.ObjectIdentifier({ value: env.certifiedDataType }),
    ...certified,
    new asn1js.OctetString({ valueHex: env.serialNumber }),
    new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: OID.ecdsaPlainSha256 })] }),
    asn1js.Integer.fromBigInt(env.signatureCounter),
    asn1js.Integer.fromBigInt(env.signatureCreationTime),
  ];
}

/** The bytes the TSE signs: the DER encodings of every element before signatureValue, one after the other. */
export function signedPart(env: Envelope, t: TransactionData): Buffer {
  return Buffer.concat(elements(env, transactionElements(t)).map(der));
}

/** A system event of the TSE (TR-03151 SystemLogMessage): eventType [0], eventOrigin [1], eventTriggeredByUser [2], eventData [3]. */
export interface SystemEvent {
  eventType: string;
  eventOrigin: string;
  eventTriggeredByUser: string;
  eventData: Buffer;
}

function systemElements(e: SystemEvent): asn1js.BaseBlock[] {
  return [
    implicit(0, Buffer.from(e.eventType, 'ascii')),
    implicit(1, Buffer.from(e.eventOrigin, 'ascii')),
    implicit(2, Buffer.from(e.eventTriggeredByUser, 'ascii')),
    implicit(3, e.eventData),
  ];
}

export function systemSignedPart(env: Envelope, e: SystemEvent): Buffer {
  return Buffer.concat(elements(env, systemElements(e)).map(der));
}

export function systemLog(env: Envelope, e: SystemEvent, signature: Buffer): Buffer {
  return der(new asn1js.Sequence({ value: [...elements(env, systemElements(e)), new asn1js.OctetString({ valueHex: signature })] }));
}

/** An audit log message (TR-03151 AuditLogMessage): its certified data is seAuditData. */
export function auditSignedPart(env: Envelope, seAuditData: Buffer): Buffer {
  return Buffer.concat(elements(env, [new asn1js.OctetString({ valueHex: seAuditData })]).map(der));
}

export function auditLog(env: Envelope, seAuditData: Buffer, signature: Buffer): Buffer {
  return der(new asn1js.Sequence({ value: [...elements(env, [new asn1js.OctetString({ valueHex: seAuditData })]), new asn1js.OctetString({ valueHex: signature })] }));
}

export function transactionLog(env: Envelope, t: TransactionData, signature: Buffer): Buffer {
  return der(new asn1js.Sequence({ value: [...elements(env, transactionElements(t)), new asn1js.OctetString({ valueHex: signature })] }));
}

export interface ParsedLog {
  certifiedDataType: string;
  operationType?: string;
  clientId?: string;
  processData?: Buffer;
  processType?: string;
  transactionNumber?: bigint;
  /** seAuditData of an audit log */
  auditData?: Buffer;
  serialNumber: Buffer;
  signatureCounter: bigint;
  signatureCreationTime: bigint;
  signatureValue: Buffer;
  /** the concatenated encodings of every element before signatureValue */
  signed: Buffer;
}

function bigOf(bytes: ArrayBuffer | Uint8Array): bigint {
  const b = Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
  if (b.length === 0) return 0n;
  return BigInt.asIntN(b.length * 8, BigInt(`0x${b.toString('hex')}`));
}

/** Decodes a log message (ours or a certified TSE's); throws on anything that is not one. */
export function parseLog(message: Buffer): ParsedLog {
  const { result, offset } = asn1js.fromBER(new Uint8Array(message));
  if (offset === -1 || !(result instanceof asn1js.Sequence)) throw new Error('not a DER SEQUENCE');
  const items = result.valueBlock.value;
  const last = items[items.length - 1];
  if (!(last instanceof asn1js.OctetString)) throw new Error('no signatureValue');
  const signed = Buffer.concat(items.slice(0, -1).map((e) => Buffer.from(e.toBER(false))));
  const oid = items[1];
  if (!(oid instanceof asn1js.ObjectIdentifier)) throw new Error('no certifiedDataType');
  const out: Partial<ParsedLog> = { certifiedDataType: oid.valueBlock.toString(), signatureValue: Buffer.from(last.valueBlock.valueHexView), signed };
  const ints: bigint[] = [];
  for (const e of items.slice(2, -1)) {
    if (e.idBlock.tagClass === 3) {
      const bytes = Buffer.from((e as asn1js.Primitive).valueBlock.valueHexView);
      switch (e.idBlock.tagNumber) {
        case 0: out.operationType = bytes.toString('ascii'); break;
        case 1: out.clientId = bytes.toString('ascii'); break;
        case 2: out.processData = bytes; break;
        case 3: out.processType = bytes.toString('ascii'); break;
        case 5: out.transactionNumber = bigOf(bytes); break;
      }
    } else if (e instanceof asn1js.OctetString) {
      // an audit log's certified data (seAuditData) comes before the serial number
      if (out.certifiedDataType === OID.auditLog && out.auditData === undefined) out.auditData = Buffer.from(e.valueBlock.valueHexView);
      else out.serialNumber ??= Buffer.from(e.valueBlock.valueHexView);
    } else if (e instanceof asn1js.Integer) {
      ints.push(bigOf(e.valueBlock.valueHexView));
    }
  }
  if (!out.serialNumber || ints.length < 2) throw new Error('incomplete log message');
  out.signatureCounter = ints[0] as bigint;
  out.signatureCreationTime = ints[1] as bigint;
  return out as ParsedLog;
}
