/**
 * Our TSE's system and audit logs decoded field by field against TR-03151 (SystemLogMessage: operationType
 * [0], systemOperationData [1] holding the DER of the operation's SEQUENCE; AuditLogMessage: seAuditData
 * after signatureAlgorithm) with asn1js alone, their signatures verified with the public key; and our
 * parser on them and on the layout this service wrote before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import * as asn1js from 'asn1js';
import { uncompressedPoint } from '../../../shared/files.js';
import { OID, parseLog } from './log-message.js';
import { preambleLogs, systemEvent } from './system-events.js';
import { decodeSystemOperationData } from './system-operations.js';
import type { Tse } from './tse.js';

function fakeTse(): Tse & { answering: boolean } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const point = uncompressedPoint(publicKey);
  const tse = {
    serial: createHash('sha256').update(point).digest(),
    publicKey: point,
    answering: true,
    available: () => tse.answering,
    sign: (data: Buffer) => (tse.answering ? sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' }) : undefined),
  };
  return tse;
}

const spki = (tse: Tse) => createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: tse.publicKey.subarray(1, 33).toString('base64url'), y: tse.publicKey.subarray(33).toString('base64url') }, format: 'jwk' });

interface Element {
  tag: string;
  block: asn1js.BaseBlock;
  der: Buffer;
}

/** The elements of a log message with their identifier octet as hex (e.g. 80 for [0] IMPLICIT primitive). */
function elementsOf(message: Buffer): Element[] {
  const { result, offset } = asn1js.fromBER(new Uint8Array(message));
  assert.equal(offset, message.length);
  assert.ok(result instanceof asn1js.Sequence);
  return result.valueBlock.value.map((b) => {
    const der = Buffer.from(b.toBER(false));
    return { tag: der.subarray(0, 1).toString('hex'), block: b, der };
  });
}

const contents = (e: Element): Buffer => Buffer.from((e.block as asn1js.Primitive).valueBlock.valueHexView);
const intOf = (e: Element): bigint => (e.block as asn1js.Integer).toBigInt();

/** Checks the common part and the signature; answers the certified data's elements. */
function checkEnvelope(message: Buffer, tse: Tse, oid: string, counter: bigint, time: bigint, certifiedCount: number, audit?: Buffer): Element[] {
  const el = elementsOf(message);
  assert.deepEqual(el.map((e) => e.tag), ['02', '06', ...el.slice(2, 2 + certifiedCount).map((e) => e.tag), '04', '30', ...(audit ? ['04'] : []), '02', '02', '04']);
  assert.equal(intOf(el[0] as Element), 2n, 'version 2');
  assert.equal((el[1]?.block as asn1js.ObjectIdentifier).valueBlock.toString(), oid);
  const rest = el.slice(2 + certifiedCount);
  assert.deepEqual(contents(rest[0] as Element), tse.serial, 'serialNumber: SHA-256 of the public key');
  assert.equal(((rest[1]?.block as asn1js.Sequence).valueBlock.value[0] as asn1js.ObjectIdentifier).valueBlock.toString(), OID.ecdsaPlainSha256);
  const tail = audit ? rest.slice(3) : rest.slice(2);
  if (audit) assert.deepEqual(contents(rest[2] as Element), audit, 'seAuditData after signatureAlgorithm');
  assert.equal(intOf(tail[0] as Element), counter, 'signatureCounter');
  assert.equal(intOf(tail[1] as Element), time, 'logTime as unixTime');
  const signature = contents(tail[2] as Element);
  assert.equal(signature.length, 64, 'plain R‖S');
  const signed = Buffer.concat(el.slice(0, -1).map((e) => e.der));
  assert.ok(verify('sha256', signed, { key: spki(tse), dsaEncoding: 'ieee-p1363' }, signature), 'the signature verifies with the public key');
  return el.slice(2, 2 + certifiedCount);
}

/** The fields of systemOperationData, a SEQUENCE of tagged fields: identifier octet and contents octets of each. */
function sequenceFields(data: Buffer): Array<[string, Buffer]> {
  const { result, offset } = asn1js.fromBER(new Uint8Array(data));
  assert.equal(offset, data.length, 'systemOperationData is one DER element');
  assert.ok(result instanceof asn1js.Sequence, 'systemOperationData is a SEQUENCE');
  return result.valueBlock.value.map((b) => {
    const der = Buffer.from(b.toBER(false));
    return [der.subarray(0, 1).toString('hex'), der.subarray(b.idBlock.blockLength + b.lenBlock.blockLength)];
  });
}

const asInt = (b: Buffer): bigint => BigInt(`0x${b.toString('hex')}`);

/** The unixTime of an explicitly tagged Time: the contents of the tag are the whole INTEGER. */
function explicitUnixTime(b: Buffer): bigint {
  const { result, offset } = asn1js.fromBER(new Uint8Array(b));
  assert.equal(offset, b.length, 'one element inside the tag');
  assert.ok(result instanceof asn1js.Integer, 'Time as its unixTime alternative, an INTEGER');
  return result.toBigInt();
}

test('initialize, updateTime and the audit log after a failure, as TR-03151 lays them out', () => {
  const tse = fakeTse();
  const c: Record<string, string> = {};
  const now = 1_732_000_000n;
  const pre = preambleLogs(c, tse, now);
  const init = Buffer.from(pre.LogInit as string, 'base64');
  const [op, data] = checkEnvelope(init, tse, OID.systemLog, 1n, now, 2) as [Element, Element];
  assert.equal(op.tag, '80', 'operationType [0] IMPLICIT PrintableString');
  assert.equal(contents(op).toString('latin1'), 'initialize');
  assert.equal(data.tag, '81', 'systemOperationData [1] IMPLICIT OCTET STRING');
  assert.deepEqual(sequenceFields(contents(data)), [['81', Buffer.from('efr software TSE')]], 'description [1]');

  const time = Buffer.from(pre.LogTime as string, 'base64');
  const [op2, data2] = checkEnvelope(time, tse, OID.systemLog, 2n, now, 2) as [Element, Element];
  assert.equal(contents(op2).toString('latin1'), 'updateTime');
  const f = sequenceFields(contents(data2));
  // Time is a CHOICE: its tag is explicit (X.680 31.2.7), constructed around the alternative
  assert.deepEqual(f.map(([t]) => t), ['a1', 'a2'], 'timeBeforeUpdate [1] EXPLICIT Time, timeAfterUpdate [2] EXPLICIT Time');
  assert.equal(explicitUnixTime(f[0]?.[1] as Buffer), now, 'before: the time of its last log, its initialization');
  assert.equal(explicitUnixTime(f[1]?.[1] as Buffer), now);

  // the TSE fails, then answers again: an audit log, then the next system log
  tse.answering = false;
  assert.equal(systemEvent(c, tse, now + 10n, { operationType: 'selfTest', componentName: 'efr software TSE', result: true }), undefined);
  tse.answering = true;
  const after = preambleLogs(c, tse, now + 20n);
  const audit = Buffer.from(after.LogAudit as string, 'base64');
  const text = Buffer.from(`TSE did not answer from unixTime ${now + 10n} to ${now + 20n}: 1 operation(s) registered without it`, 'utf8');
  assert.deepEqual(checkEnvelope(audit, tse, OID.auditLog, 3n, now + 20n, 0, text), [], 'an audit log has no certified data');
  assert.deepEqual(parseLog(audit).auditData, text);
});

test('selfTest and exportData with their fields; our parser and decoder read them back', () => {
  const tse = fakeTse();
  const c: Record<string, string> = { 'de|sigCnt': '6', 'de|initialized': '1' };
  const self = systemEvent(c, tse, 1_732_000_100n, { operationType: 'selfTest', componentName: 'efr software TSE', result: true }) as Buffer;
  const [, d1] = checkEnvelope(self, tse, OID.systemLog, 7n, 1_732_000_100n, 2) as [Element, Element];
  assert.deepEqual(sequenceFields(contents(d1)), [['81', Buffer.from('efr software TSE')], ['82', Buffer.from([0xff])]], 'componentName [1], result [2] TRUE');

  const exp = systemEvent(c, tse, 1_732_000_200n, { operationType: 'exportData', startDate: 1_731_974_400n, endDate: 1_732_060_799n, previousSignatureCounter: 3n }) as Buffer;
  const [op, d2] = checkEnvelope(exp, tse, OID.systemLog, 8n, 1_732_000_200n, 2) as [Element, Element];
  assert.equal(contents(op).toString('latin1'), 'exportData');
  const f = sequenceFields(contents(d2));
  assert.deepEqual(f.map(([t]) => t), ['a1', 'a2', '83'], 'startDate [1] EXPLICIT Time, endDate [2] EXPLICIT Time, previousSignatureCounter [3] IMPLICIT INTEGER');
  assert.deepEqual([explicitUnixTime(f[0]?.[1] as Buffer), explicitUnixTime(f[1]?.[1] as Buffer), asInt(f[2]?.[1] as Buffer)], [1_731_974_400n, 1_732_060_799n, 3n]);

  const p = parseLog(exp);
  assert.equal(p.operationType, 'exportData');
  assert.equal(p.signatureCounter, 8n);
  assert.equal(p.logTimeFormat, 'unixTime');
  assert.deepEqual(decodeSystemOperationData('exportData', p.systemOperationData as Buffer), {
    fields: { startDate: 1_731_974_400n, endDate: 1_732_060_799n, previousSignatureCounter: 3n },
    bare: false,
  });
  assert.deepEqual(decodeSystemOperationData('selfTest', parseLog(self).systemOperationData as Buffer).fields, { componentName: 'efr software TSE', result: true });
  // Time implicitly tagged, as the BSI TSE simulator and this service's earlier journal records have it
  assert.deepEqual(decodeSystemOperationData('updateTime', Buffer.from('300c8104673c8c008204673c8c64', 'hex')).fields, { timeBeforeUpdate: 1_732_021_248n, timeAfterUpdate: 1_732_021_348n });
});

test('the parser reads a system log in the layout this service wrote before, and refuses what is no log message', () => {
  const tse = fakeTse();
  const ctx = (tag: number, s: string): asn1js.Primitive => new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: tag }, valueHex: Buffer.from(s) });
  const items = [
    new asn1js.Integer({ value: 2 }), new asn1js.ObjectIdentifier({ value: OID.systemLog }),
    ctx(0, 'initialize'), ctx(1, 'SE-API'), ctx(2, 'efr'), ctx(3, ''),
    new asn1js.OctetString({ valueHex: tse.serial }), new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: OID.ecdsaPlainSha256 })] }),
    asn1js.Integer.fromBigInt(1n), asn1js.Integer.fromBigInt(1_700_000_000n),
  ];
  const signed = Buffer.concat(items.map((i) => Buffer.from(i.toBER(false))));
  const old = Buffer.from(new asn1js.Sequence({ value: [...items, new asn1js.OctetString({ valueHex: tse.sign(signed) as Buffer })] }).toBER(false));
  const p = parseLog(old);
  assert.equal(p.operationType, 'initialize');
  assert.deepEqual(p.signed, signed);
  assert.throws(() => parseLog(Buffer.from('3003020102', 'hex')), /no certifiedDataType/);
  assert.throws(() => parseLog(Buffer.concat([old, Buffer.from([0])])), /1 bytes after the log message/);
});

test('the parser reads an audit log in the layout this service wrote before (seAuditData before serialNumber)', () => {
  const tse = fakeTse();
  const text = Buffer.from('TSE did not answer', 'utf8');
  const items = [
    new asn1js.Integer({ value: 2 }), new asn1js.ObjectIdentifier({ value: OID.auditLog }), new asn1js.OctetString({ valueHex: text }),
    new asn1js.OctetString({ valueHex: tse.serial }), new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: OID.ecdsaPlainSha256 })] }),
    asn1js.Integer.fromBigInt(4n), asn1js.Integer.fromBigInt(1_700_000_000n),
  ];
  const signed = Buffer.concat(items.map((i) => Buffer.from(i.toBER(false))));
  const old = Buffer.from(new asn1js.Sequence({ value: [...items, new asn1js.OctetString({ valueHex: tse.sign(signed) as Buffer })] }).toBER(false));
  const p = parseLog(old);
  assert.deepEqual(p.auditData, text);
  assert.deepEqual(p.serialNumber, tse.serial);
  assert.equal(p.signatureCounter, 4n);
  assert.ok(verify('sha256', p.signed, { key: spki(tse), dsaEncoding: 'ieee-p1363' }, p.signatureValue));
});

test('the parser refuses a log message in indefinite-length BER, whose signed part it could not cut out', () => {
  const tse = fakeTse();
  const c = { 'de|initialized': '1' } as Record<string, string>;
  const log = systemEvent(c, tse, 1_700_000_000n, { operationType: 'selfTest', componentName: 'efr software TSE', result: true }) as Buffer;
  const header = asn1js.fromBER(new Uint8Array(log)).result;
  const body = log.subarray(header.idBlock.blockLength + header.lenBlock.blockLength);
  const indefinite = Buffer.concat([Buffer.from('3080', 'hex'), body, Buffer.from('0000', 'hex')]);
  assert.ok(parseLog(log).signed.length > 0, 'the DER form is read');
  assert.throws(() => parseLog(indefinite), /indefinite length/);
});
