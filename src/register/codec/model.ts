/**
 * The format-neutral document model shared by the JSON and XML codecs.
 * Every scalar is a string (amounts stay exactly as sent: "1.50" stays "1.50"),
 * objects map names to values, and line arrays hold objects whose `_` names their type.
 */
export type Value = string | Obj | Value[];
export interface Obj {
  [key: string]: Value;
}

export type Format = 'json' | 'xml';

/** A decoded request body: its root element name, its content and the format it came in. */
export interface Doc {
  root: string;
  body: Obj;
  format: Format;
}

/** Containers whose children are typed lines (`_` in JSON, the element name in XML). */
export const LINE_ARRAYS: ReadonlySet<string> = new Set([
  'PosA', 'PayA', 'TaxA', 'ZTaxA', 'ZFisUnitA', 'ZFisTraA', 'ZCatA', 'ZPayA', 'ZCreditRsnA', 'ZOprA', 'ZAuditA',
  // lists of journal records (GET /find, /retrieve): each item's `_` is its record type
  'Records',
]);

/** The default line type of a container when a JSON client leaves `_` out. */
export const DEFAULT_LINE_TYPE: Readonly<Record<string, string>> = {
  PosA: 'Pos', PayA: 'Pay', TaxA: 'Tax', ZTaxA: 'Tax',
};

/** Elements that may repeat side by side in XML and are arrays in JSON. */
export const REPEATED: ReadonlySet<string> = new Set(['Tag', 'Warning', 'Dev', 'DE_Agentur', 'Delivery', 'Lines', 'layouts', 'Diff', 'ZTax']);

/** Scalars written as child text elements in XML rather than as attributes (long or free text). */
export const TEXT_ELEMENTS: ReadonlySet<string> = new Set([
  'Code', 'Link', 'Payload', 'Signature', 'ES_TBAI_Code', 'ErrorCode', 'UserMessage', 'Message', 'Warning', 'Lines', 'Diff', 'Text',
]);

/** Scalars that are JSON integers in responses (typed clients read them as int). */
export const INTEGER_KEYS: ReadonlySet<string> = new Set(['SQ', 'TID']);

export function isObj(v: Value | undefined): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(o: Obj, key: string): string | undefined {
  const v = o[key];
  return typeof v === 'string' ? v : undefined;
}

export function obj(o: Obj, key: string): Obj | undefined {
  const v = o[key];
  return isObj(v) ? v : undefined;
}

export function lines(o: Obj, key: string): Obj[] {
  const v = o[key];
  if (Array.isArray(v)) return v.filter(isObj);
  if (isObj(v)) return [v];
  return [];
}

/** Deep copy (documents are plain trees). */
export function clone<T extends Value>(v: T): T {
  return structuredClone(v);
}
