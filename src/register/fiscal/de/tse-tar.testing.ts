/**
 * Test helpers: a TSE of another vendor, as certified TSEs lay out their exports (brainpoolP384r1 key,
 * ecdsa-plain-SHA384, a CA chain issued with openssl, logTime as GeneralizedTime or unixTime), writing
 * TR-03151 log messages with asn1js independently of our own writer, its serial computed from openssl's
 * encoding of its key; and TARs of any files.
 */
import { spawnSync } from 'node:child_process';
import { type KeyObject, createHash, createPrivateKey, sign } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import { pack } from 'tar-stream';

function openssl(cwd: string, args: string[]): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
}

export interface Issued {
  keyFile: string;
  certFile: string;
  certPem: Buffer;
  certDer: Buffer;
  key: KeyObject;
  /** hex SHA-256 of the uncompressed public key */
  serial: string;
}

/** The serial of a key as openssl gives it: SHA-256 of the uncompressed point, the last 97 bytes of its P-384-sized SPKI. */
function serialOf(dir: string, name: string): string {
  openssl(dir, ['ec', '-in', `${name}.key`, '-pubout', '-outform', 'DER', '-out', `${name}.spki`]);
  return createHash('sha256').update(readFileSync(join(dir, `${name}.spki`)).subarray(-97)).digest('hex');
}

function finish(dir: string, name: string): Issued {
  const keyFile = join(dir, `${name}.key`);
  const certFile = join(dir, `${name}.pem`);
  openssl(dir, ['x509', '-in', certFile, '-outform', 'DER', '-out', join(dir, `${name}.der`)]);
  const key = createPrivateKey(readFileSync(keyFile));
  const serial = serialOf(dir, name);
  return { keyFile, certFile, certPem: readFileSync(certFile), certDer: readFileSync(join(dir, `${name}.der`)), key, serial };
}

/** A self-signed root CA (keyCertSign) on brainpoolP384r1. */
export function makeRootCa(dir: string, name: string): Issued {
  openssl(dir, ['ecparam', '-name', 'brainpoolP384r1', '-genkey', '-noout', '-out', `${name}.key`]);
  openssl(dir, ['req', '-x509', '-new', '-key', `${name}.key`, '-subj', `/CN=${name}/O=Test TSE Vendor`, '-days', '3650', '-sha384', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-out', `${name}.pem`]);
  return finish(dir, name);
}

/** A certificate issued by `ca`: another CA (keyCertSign) or a TSE's signing key, whose CN is its serial. */
export function issue(dir: string, name: string, ca: Issued, kind: 'ca' | 'tse'): Issued {
  openssl(dir, ['ecparam', '-name', 'brainpoolP384r1', '-genkey', '-noout', '-out', `${name}.key`]);
  const cn = kind === 'tse' ? serialOf(dir, name).toUpperCase() : name;
  openssl(dir, ['req', '-new', '-key', `${name}.key`, '-subj', `/CN=${cn}/O=Test TSE Vendor`, '-out', `${name}.csr`]);
  const ext = kind === 'ca' ? 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n' : 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n';
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', ca.certFile, '-CAkey', ca.keyFile, '-CAcreateserial', '-days', '3650', '-sha384', '-extfile', `${name}.ext`, '-out', `${name}.pem`]);
  return finish(dir, name);
}

const ctx = (tag: number, bytes: Uint8Array): asn1js.Primitive => new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: tag }, valueHex: bytes });
const intOf = (v: bigint): Uint8Array => new Uint8Array(asn1js.Integer.fromBigInt(v).valueBlock.valueHexView);
const der = (e: asn1js.BaseBlock): Buffer => Buffer.from(e.toBER(false));

export const ECDSA_PLAIN_SHA384 = '0.4.0.127.0.7.1.1.4.1.4';

export interface VendorLog {
  kind: 'transaction' | 'system' | 'audit';
  counter: bigint;
  time: bigint;
  /** a transaction's or a system log's certified data, each element [tag] IMPLICIT with these contents */
  certified?: Array<[number, Uint8Array]>;
  seAuditData?: Buffer;
  timeFormat?: 'unixTime' | 'generalizedTime';
}

/** A log message as a certified TSE writes it, signed with `key` (ecdsa-plain-SHA384). */
export function vendorLog(key: KeyObject, serialHex: string, l: VendorLog): Buffer {
  const oid = { transaction: '0.4.0.127.0.7.3.7.1.1', system: '0.4.0.127.0.7.3.7.1.2', audit: '0.4.0.127.0.7.3.7.1.3' }[l.kind];
  const time = l.timeFormat === 'generalizedTime' ? new asn1js.GeneralizedTime({ valueDate: new Date(Number(l.time) * 1000) }) : asn1js.Integer.fromBigInt(l.time);
  const items: asn1js.BaseBlock[] = [
    new asn1js.Integer({ value: 2 }),
    new asn1js.ObjectIdentifier({ value: oid }),
    ...(l.certified ?? []).map(([tag, bytes]) => ctx(tag, bytes)),
    new asn1js.OctetString({ valueHex: Buffer.from(serialHex, 'hex') }),
    new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: ECDSA_PLAIN_SHA384 })] }),
    ...(l.seAuditData ? [new asn1js.OctetString({ valueHex: l.seAuditData })] : []),
    asn1js.Integer.fromBigInt(l.counter),
    time,
  ];
  const signature = sign('sha384', Buffer.concat(items.map(der)), { key, dsaEncoding: 'ieee-p1363' });
  return der(new asn1js.Sequence({ value: [...items, new asn1js.OctetString({ valueHex: signature })] }));
}

/** A transaction log's certified data: operationType, clientId, processData, processType, transactionNumber. */
export function transactionData(op: string, client: string, processData: string, processType: string, tn: bigint): Array<[number, Uint8Array]> {
  return [[0, Buffer.from(op)], [1, Buffer.from(client)], [2, Buffer.from(processData)], [3, Buffer.from(processType)], [5, intOf(tn)]];
}

/** A system log's certified data: operationType [0], systemOperationData [1] (given as DER). */
export function systemData(operationType: string, systemOperationData: Buffer): Array<[number, Uint8Array]> {
  return [[0, Buffer.from(operationType)], [1, systemOperationData]];
}

/** The DER of a SEQUENCE of fields, as systemOperationData: [tag, contents] implicitly tagged, or an element's whole encoding. */
export function fields(...f: Array<[number, Uint8Array] | Uint8Array>): Buffer {
  return der(new asn1js.Sequence({ value: f.map((x) => (Array.isArray(x) ? ctx(x[0], x[1]) : asn1js.fromBER(x).result)) }));
}

export const int = intOf;
export const explicitTime = (tag: number, d: Date): Uint8Array =>
  new Uint8Array(new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: tag }, value: [new asn1js.GeneralizedTime({ valueDate: d })] }).toBER(false));

/** The bytes of a TAR of these files. */
export async function tarBytes(entries: ReadonlyArray<readonly [string, Buffer]>): Promise<Buffer> {
  const out = pack();
  for (const [name, bytes] of entries) out.entry({ name }, bytes);
  out.finalize();
  const chunks: Buffer[] = [];
  for await (const c of out) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
