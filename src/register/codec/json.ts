import { parse as parseLossless } from 'lossless-json';
import { FiscalError } from '../../shared/errors.js';
import { type Obj, type Value, type Doc, INTEGER_KEYS, isObj } from './model.js';
import { MAX_DEPTH, checkDepth, checkName, checkText } from './guard.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function hasNumber(v: Json, depth = 0): boolean {
  if (typeof v === 'number') return true;
  if (depth > MAX_DEPTH) return false; // refused by toValue with a clear message
  if (Array.isArray(v)) return v.some((x) => hasNumber(x, depth + 1));
  if (v !== null && typeof v === 'object') return Object.values(v).some((x) => hasNumber(x, depth + 1));
  return false;
}

/** JSON values to the string model: numbers keep their source text, booleans become 1/0, null is absent. */
function toValue(v: unknown, depth: number, path: string): Value | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') {
    checkText(v, 'json', path);
    return v;
  }
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'bigint') return v.toString();
  checkDepth(depth, 'json', path);
  if (Array.isArray(v)) {
    const out: Value[] = [];
    v.forEach((item, i) => {
      const x = toValue(item, depth + 1, `${path}[${i}]`);
      if (x !== undefined) out.push(x);
    });
    return out;
  }
  if (typeof v === 'object') {
    // lossless-json hands numbers over as their source text; other objects are plain
    const out: Obj = {};
    for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
      const p = path ? `${path}.${k}` : k;
      checkName(k, 'json', p);
      const x = toValue(item, depth + 1, p);
      if (x !== undefined) out[k] = x;
    }
    return out;
  }
  return undefined;
}

/** Parses a JSON body `{"Root": {...}}` without losing the text of numbers. */
export function decodeJson(text: string): Doc {
  let parsed: unknown;
  try {
    const fast = JSON.parse(text) as Json;
    parsed = hasNumber(fast) ? parseLossless(text, null, (source: string) => source) : fast;
  } catch (e) {
    throw new FiscalError('#MALFORMED', { format: 'JSON', detail: e instanceof Error ? e.message : String(e) });
  }
  const value = toValue(parsed, 0, '');
  if (!isObj(value)) {
    throw new FiscalError('#MALFORMED', { format: 'JSON', detail: 'expected an object with one root property such as {"Tra":{...}}' });
  }
  const keys = Object.keys(value);
  if (keys.length !== 1) {
    throw new FiscalError('#MALFORMED', { format: 'JSON', detail: `expected exactly one root property, got ${keys.length}` });
  }
  const root = keys[0] as string;
  const body = value[root];
  if (!isObj(body)) {
    throw new FiscalError('#MALFORMED', { format: 'JSON', detail: `${root} must be an object` });
  }
  return { root, body, format: 'json' };
}

function toJson(v: Value, key: string): Json {
  if (typeof v === 'string') {
    return INTEGER_KEYS.has(key) && /^-?\d{1,15}$/.test(v) ? Number(v) : v;
  }
  if (Array.isArray(v)) return v.map((x) => toJson(x, key));
  const out: { [k: string]: Json } = {};
  for (const [k, x] of Object.entries(v)) out[k] = toJson(x, k);
  return out;
}

/** One value as JSON text, with the JSON types of the wire (SQ and TID integers). */
export function encodeJsonValue(key: string, v: Value): string {
  return JSON.stringify(toJson(v, key));
}

export function encodeJson(root: string, body: Obj): string {
  return JSON.stringify({ [root]: toJson(body, root) });
}
