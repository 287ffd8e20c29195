/**
 * systemOperationData of TR-03151 system log messages: for each operation the DER of a SEQUENCE of its
 * fields, each implicitly context-tagged from [1] on (TR-03151, system logs' systemOperationData):
 *
 *   initialize      ::= SEQUENCE { description [1] PrintableString }
 *   updateTime      ::= SEQUENCE { timeBeforeUpdate [1] Time, timeAfterUpdate [2] Time }
 *   selfTest        ::= SEQUENCE { componentName [1] PrintableString, result [2] BOOLEAN,
 *                                  errorMessage [3] PrintableString OPTIONAL, timeOfEvent [4] Time OPTIONAL }
 *   exportData      ::= SEQUENCE { startDate [1] Time OPTIONAL, endDate [2] Time OPTIONAL,
 *                                  previousSignatureCounter [3] INTEGER OPTIONAL }
 *   registerClient / deregisterClient ::= SEQUENCE { clientId [1] PrintableString }
 *   authenticateUser ::= SEQUENCE { userId [1] PrintableString, role [2] ENUMERATED, authenticationResult [3] BOOLEAN, ... }
 *   logOut          ::= SEQUENCE { userId [1] PrintableString, logOutCause [2] ENUMERATED }
 *   unblockUser     ::= SEQUENCE { userId [1] PrintableString, unblockResult [2] ENUMERATED }
 *   enterSecureState / exitSecureState ::= SEQUENCE { timeOfEvent [1] Time OPTIONAL }
 *   disableSecureElement ::= SEQUENCE { timeOfDeactivation [1] Time }
 *   startAudit      ::= (empty)
 *
 * Time is the CHOICE of logTime. A tag on a CHOICE is explicit even where tags are implicit (X.680 31.2.7:
 * an implicit tag would replace the tag that says which alternative it is), so a Time field is written as
 * [n] constructed around the unixTime INTEGER (`A1 06 02 04 <seconds>`). The reader also takes a Time
 * implicitly tagged (`81 04 <seconds>`), as the BSI TSE simulator and the journal records of this service
 * before it wrote them, the fields without the SEQUENCE around them, as the simulator writes them, and the
 * fields of operations it does not know by their tag.
 */
import * as asn1js from 'asn1js';
import { bigOf, der, implicit, intBytes } from './log-message.js';

type FieldType = 'string' | 'time' | 'boolean' | 'integer' | 'enumerated' | 'octets';

interface FieldSpec {
  tag: number;
  name: string;
  type: FieldType;
  required?: true;
}

const SPECS: Readonly<Record<string, readonly FieldSpec[]>> = {
  initialize: [{ tag: 1, name: 'description', type: 'string', required: true }],
  updateTime: [
    { tag: 1, name: 'timeBeforeUpdate', type: 'time', required: true },
    { tag: 2, name: 'timeAfterUpdate', type: 'time', required: true },
  ],
  selfTest: [
    { tag: 1, name: 'componentName', type: 'string', required: true },
    { tag: 2, name: 'result', type: 'boolean', required: true },
    { tag: 3, name: 'errorMessage', type: 'string' },
    { tag: 4, name: 'timeOfEvent', type: 'time' },
  ],
  exportData: [
    { tag: 1, name: 'startDate', type: 'time' },
    { tag: 2, name: 'endDate', type: 'time' },
    { tag: 3, name: 'previousSignatureCounter', type: 'integer' },
  ],
  registerClient: [{ tag: 1, name: 'clientId', type: 'string', required: true }],
  deregisterClient: [{ tag: 1, name: 'clientId', type: 'string', required: true }],
  authenticateUser: [
    { tag: 1, name: 'userId', type: 'string', required: true },
    { tag: 2, name: 'role', type: 'enumerated' },
    { tag: 3, name: 'authenticationResult', type: 'boolean', required: true },
    { tag: 4, name: 'remainingRetries', type: 'integer' },
  ],
  logOut: [
    { tag: 1, name: 'userId', type: 'string', required: true },
    { tag: 2, name: 'logOutCause', type: 'enumerated' },
  ],
  unblockUser: [
    { tag: 1, name: 'userId', type: 'string', required: true },
    { tag: 2, name: 'unblockResult', type: 'enumerated' },
  ],
  enterSecureState: [{ tag: 1, name: 'timeOfEvent', type: 'time' }],
  exitSecureState: [{ tag: 1, name: 'timeOfEvent', type: 'time' }],
  disableSecureElement: [{ tag: 1, name: 'timeOfDeactivation', type: 'time' }],
  startAudit: [],
};

/** The system operations this service's TSE logs, with their data. */
export type SystemOperation =
  | { operationType: 'initialize'; description: string }
  | { operationType: 'updateTime'; timeBeforeUpdate: bigint; timeAfterUpdate: bigint }
  | { operationType: 'selfTest'; componentName: string; result: boolean; errorMessage?: string }
  | { operationType: 'exportData'; startDate?: bigint; endDate?: bigint; previousSignatureCounter?: bigint };

export type FieldValue = string | bigint | boolean | Buffer;

function encodeField(spec: FieldSpec, value: FieldValue): asn1js.BaseBlock {
  switch (spec.type) {
    case 'string':
      return implicit(spec.tag, Buffer.from(value as string, 'latin1'));
    case 'boolean':
      return implicit(spec.tag, Buffer.from([value ? 0xff : 0x00]));
    case 'time':
      return new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: spec.tag }, value: [asn1js.Integer.fromBigInt(value as bigint)] });
    case 'integer':
    case 'enumerated':
      return implicit(spec.tag, intBytes(value as bigint));
    case 'octets':
      return implicit(spec.tag, value as Buffer);
  }
}

/** systemOperationData of an operation: the DER of its SEQUENCE. */
export function encodeSystemOperationData(op: SystemOperation): Buffer {
  const specs = SPECS[op.operationType] ?? [];
  const values = op as unknown as Record<string, FieldValue | undefined>;
  const fields = specs.flatMap((s) => {
    const v = values[s.name];
    return v === undefined ? [] : [encodeField(s, v)];
  });
  return der(new asn1js.Sequence({ value: fields }));
}

export interface DecodedOperation {
  /** the fields by name (unknown operations or tags: `tag<n>` with the contents octets) */
  fields: Record<string, FieldValue>;
  /** true when the fields came without the SEQUENCE around them */
  bare: boolean;
}

function decodeValue(spec: FieldSpec | undefined, e: asn1js.BaseBlock): FieldValue {
  const raw = Buffer.from(e.valueBeforeDecodeView).subarray(e.idBlock.blockLength + e.lenBlock.blockLength);
  if (!spec) return raw;
  if (e.idBlock.isConstructed) {
    // an explicitly tagged value: the universal element inside
    const inner = asn1js.fromBER(new Uint8Array(raw)).result;
    if (spec.type === 'time' && (inner instanceof asn1js.GeneralizedTime || inner instanceof asn1js.UTCTime)) return BigInt(Math.floor(inner.toDate().getTime() / 1000));
    if (inner instanceof asn1js.Integer || inner instanceof asn1js.Enumerated) return bigOf(inner.valueBlock.valueHexView);
    if (inner instanceof asn1js.Boolean) return inner.getValue();
    throw new Error(`${spec.name} [${spec.tag}] holds no ${spec.type}`);
  }
  switch (spec.type) {
    case 'string':
      return raw.toString('latin1');
    case 'boolean':
      if (raw.length !== 1) throw new Error(`${spec.name} [${spec.tag}] is no BOOLEAN`);
      return raw[0] !== 0;
    case 'time':
    case 'integer':
    case 'enumerated':
      if (raw.length === 0) throw new Error(`${spec.name} [${spec.tag}] is empty`);
      return bigOf(raw);
    case 'octets':
      return raw;
  }
}

/** Reads systemOperationData of an operation; throws naming what is wrong (not DER, a mandatory field missing). */
export function decodeSystemOperationData(operationType: string, data: Buffer): DecodedOperation {
  const specs = SPECS[operationType];
  if (data.length === 0) {
    if (specs?.some((s) => s.required)) throw new Error(`systemOperationData of ${operationType} is empty`);
    return { fields: {}, bare: true };
  }
  const elements: asn1js.BaseBlock[] = [];
  let bare = false;
  const whole = asn1js.fromBER(new Uint8Array(data));
  if (whole.offset === data.length && whole.result instanceof asn1js.Sequence) {
    elements.push(...whole.result.valueBlock.value);
  } else {
    bare = true;
    let at = 0;
    while (at < data.length) {
      const r = asn1js.fromBER(new Uint8Array(data.subarray(at)));
      if (r.offset === -1) throw new Error(`systemOperationData of ${operationType} is not DER: ${r.result.error || 'cannot decode'}`);
      elements.push(r.result);
      at += r.offset;
    }
  }
  const fields: Record<string, FieldValue> = {};
  for (const e of elements) {
    // an operation we do not know may lay out its data as it likes; one we know has context-tagged fields
    if (e.idBlock.tagClass !== 3) {
      if (specs) throw new Error(`systemOperationData of ${operationType} has an element that is not context-tagged`);
      fields[`universal${e.idBlock.tagNumber}`] = decodeValue(undefined, e);
      continue;
    }
    const spec = specs?.find((s) => s.tag === e.idBlock.tagNumber);
    fields[spec?.name ?? `tag${e.idBlock.tagNumber}`] = decodeValue(spec, e);
  }
  for (const s of specs ?? []) if (s.required && fields[s.name] === undefined) throw new Error(`systemOperationData of ${operationType} has no ${s.name} [${s.tag}]`);
  return { fields, bare };
}
