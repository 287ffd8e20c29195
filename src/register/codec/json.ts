import { parse as parseLossless } from 'lossless-json';
import { FiscalError } from '../../shared/errors.js';
import { type Obj, type Value, type Doc, INTEGER_KEYS, isObj } from './model.js';
import { type ParseLimits, PARSE_LIMITS, ParseBudget, checkDepth, checkName, checkText, hasBadText } from './guard.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * Whether a parsed body has a number anywhere (then it is parsed again, keeping the numbers' text).
 * Stops at the first number. An object or array wider than the limits, or a document deeper, answers
 * false: toValue then refuses it on this parse with the limit's message, before a second parse.
 */
function hasNumber(v: Json, depth: number, limits: ParseLimits): boolean {
  if (typeof v === 'number') return true;
  if (v === null || typeof v !== 'object' || depth > limits.maxDepth) return false;
  if (Array.isArray(v)) {
    if (v.length > limits.maxNodes) return false;
    for (const x of v) if (hasNumber(x, depth + 1, limits)) return true;
    return false;
  }
  // Object.keys, not Object.values or entries: it is cached for objects of one shape, and the cheapest
  // way to see how wide an object is when it is far too wide
  const keys = Object.keys(v);
  if (keys.length > limits.maxKeys) return false;
  for (const k of keys) if (hasNumber(v[k] as Json, depth + 1, limits)) return true;
  return false;
}

/** Where toValue is: the keys and indexes down to the value, built into a path only for a refusal. */
type Trail = Array<string | number>;

function trailText(trail: Trail): string {
  let out = '';
  for (const step of trail) out += typeof step === 'number' ? `[${step}]` : out ? `.${step}` : step;
  return out;
}

/** JSON values to the string model: numbers keep their source text, booleans become 1/0, null is absent. */
function toValue(v: unknown, depth: number, trail: Trail, where: () => string, budget: ParseBudget): Value | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') {
    checkText(v, 'json', where);
    return v;
  }
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'bigint') return v.toString();
  checkDepth(depth, 'json', where, budget.limits);
  if (Array.isArray(v)) {
    budget.count(v.length, where);
    const out: Value[] = [];
    for (let i = 0; i < v.length; i++) {
      trail.push(i);
      const x = toValue(v[i], depth + 1, trail, where, budget);
      trail.pop();
      if (x !== undefined) out.push(x);
    }
    return out;
  }
  if (typeof v === 'object') {
    // lossless-json hands numbers over as their source text; other objects are plain
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    budget.keys(keys.length, where);
    budget.count(keys.length, where);
    const out: Obj = {};
    for (const k of keys) {
      trail.push(k);
      // before reading o[k]: a "__proto__" key would read the prototype
      checkName(k, 'json', where);
      const x = toValue(o[k], depth + 1, trail, where, budget);
      trail.pop();
      if (x !== undefined) out[k] = x;
    }
    return out;
  }
  return undefined;
}

/**
 * Whether a parsed body is the string model already (strings, objects and arrays only, as a POS sending
 * every value as a string writes it), checked as toValue checks it; then it is used as it is, without a
 * copy. Answers false at the first number, boolean or null: toValue then converts a copy.
 */
function stringsOnly(v: unknown, depth: number, trail: Trail, where: () => string, budget: ParseBudget, textsChecked: boolean): boolean {
  if (typeof v === 'string') {
    if (!textsChecked) checkText(v, 'json', where);
    return true;
  }
  if (v === null || typeof v !== 'object') return false;
  checkDepth(depth, 'json', where, budget.limits);
  if (Array.isArray(v)) {
    budget.count(v.length, where);
    for (let i = 0; i < v.length; i++) {
      trail.push(i);
      const ok = stringsOnly(v[i], depth + 1, trail, where, budget, textsChecked);
      trail.pop();
      if (!ok) return false;
    }
    return true;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  budget.keys(keys.length, where);
  budget.count(keys.length, where);
  for (const k of keys) {
    trail.push(k);
    checkName(k, 'json', where);
    const ok = stringsOnly(o[k], depth + 1, trail, where, budget, textsChecked);
    trail.pop();
    if (!ok) return false;
  }
  return true;
}

/** An escape that may stand for a character checkText refuses (a control character or a non-character); `\\b` matches too, which only costs the check per string. */
const ESCAPES_OF_REFUSED = /\\[ubf]/;

/** Parses a JSON body `{"Root": {...}}` without losing the text of numbers, within `limits` (guard.ts). */
export function decodeJson(text: string, limits: ParseLimits = PARSE_LIMITS): Doc {
  let fast: Json;
  try {
    fast = JSON.parse(text) as Json;
  } catch (e) {
    throw new FiscalError('#MALFORMED', { format: 'JSON', detail: e instanceof Error ? e.message : String(e) });
  }
  const trail: Trail = [];
  const where = (): string => trailText(trail);
  let value: Value | undefined;
  // a string holds the characters of the body between its quotes, and those its escapes stand for (JSON.parse
  // refuses raw control characters there); of the escapes only \u, \b and \f can stand for a refused
  // character: without them one scan of the body checks every string's text
  const textsChecked = !ESCAPES_OF_REFUSED.test(text) && !hasBadText(text);
  if (stringsOnly(fast, 0, trail, where, new ParseBudget('json', limits), textsChecked)) value = fast as Value;
  else {
    trail.length = 0;
    let parsed: unknown;
    try {
      parsed = hasNumber(fast, 0, limits) ? parseLossless(text, null, (source: string) => source) : fast;
    } catch (e) {
      throw new FiscalError('#MALFORMED', { format: 'JSON', detail: e instanceof Error ? e.message : String(e) });
    }
    value = toValue(parsed, 0, trail, where, new ParseBudget('json', limits));
  }
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
