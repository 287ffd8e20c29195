/**
 * The record a POS posts to POST /render: what it fetched earlier from /tra (`{"Tra": {...}}` or
 * `<Tra ...>`), one record of /find (`{"_": "Tra", ...}`, or the whole /find answer holding exactly
 * one record), or a request as sent to /register (Tra, TraS, Audit). Anything else is refused with
 * what was expected.
 */
import { FiscalError } from '../../shared/errors.js';
import { type Doc, type Obj, bodyFormat, decodeBody, isObj, lines, str } from '../codec/index.js';
import { RECEIPT_TYPES, type ReceiptRecord, type ReceiptType } from './receipt-view.js';

const EXPECTED = 'a Tra, TraS or Audit record as /tra or /find return it';

function receiptType(name: string, field: string): ReceiptType {
  const type = RECEIPT_TYPES.find((t) => t === name);
  if (!type) throw new FiscalError('#UNKNOWN_ROOT', { field: `${field} "${name}"`, expected: 'Tra, TraS or Audit' });
  return type;
}

/** A /find record is the record itself with `_` naming its type: wrapped as `{"<type>": record}` before decoding. */
function decode(text: string, contentType: string | undefined): Doc {
  if (bodyFormat(contentType, text) === 'json') {
    let top: unknown;
    try {
      top = JSON.parse(text);
    } catch {
      top = undefined; // decodeBody names the syntax error
    }
    if (typeof top === 'object' && top !== null && !Array.isArray(top)) {
      const type = (top as Record<string, unknown>)._;
      if (typeof type === 'string') return decodeBody(`{${JSON.stringify(receiptType(type, '_'))}:${text}}`, contentType, EXPECTED);
    }
  }
  return decodeBody(text, contentType, EXPECTED);
}

function recordOf(type: ReceiptType, body: Obj): ReceiptRecord {
  const { _: _type, ...data } = body;
  if (type === 'Audit') {
    // a journal record holds the audit under Audit; a request to /register is the audit itself
    return { type, data: isObj(data.Audit) ? data : { Audit: data } };
  }
  if (!isObj(data.ESR)) throw new FiscalError('#MISSING_FIELD', { field: `${type}.ESR` });
  if (data.Fis !== undefined && !isObj(data.Fis)) throw new FiscalError('#INVALID_TYPE', { field: `${type}.Fis`, expected: 'an object', value: String(data.Fis) });
  return { type, data };
}

export function postedRecord(text: string, contentType: string | undefined): ReceiptRecord {
  const doc = decode(text, contentType);
  if (doc.root === 'Find' || doc.root === 'Retrieve') {
    const records = lines(doc.body, 'Records');
    if (records.length !== 1) {
      throw new FiscalError('#INVALID_VALUE', { field: `${doc.root}.Records`, detail: `exactly one record to render, got ${records.length}` });
    }
    const only = records[0] as Obj;
    return recordOf(receiptType(str(only, '_') ?? '', `${doc.root}.Records[0]._`), only);
  }
  return recordOf(receiptType(doc.root, 'root'), doc.body);
}
