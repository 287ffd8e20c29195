/**
 * The query language of GET /find and GET /retrieve: indexed criteria for the store, the remaining
 * ESR properties as filters on the records, `limit` as `<N>rows<M>ms`, `sort`, and `continuation`.
 */
import { FiscalError } from '../../shared/errors.js';
import { type Obj, isObj, str } from '../codec/index.js';
import { isDate, parseLocalDateTime } from '../esr/datetime.js';
import { type FindQuery, RECORD_TYPES, type RecordType } from './types.js';

export const DEFAULT_LIMIT = { rows: 1000, ms: 5000 };
export const MAX_ROWS = 10_000;
/** The longest a search may take per call, so that a POS is never kept waiting behind one. */
export const MAX_MS = 60_000;

/** Query names that are not ESR filters. */
const CONTROL = new Set(['rn', 'taxid', 'limit', 'sort', 'continuation', 'password', 'from', 'till', 'last', 'endsq', 'target', '_']);
const INDEXED: Readonly<Record<string, keyof FindQuery>> = { fn: 'fn', tn: 'tn', tl: 'tl', tt: 'tt', t: 't', nfs: 'nfs', bc: 'bc', d: 'd' };

export interface ParsedFind {
  query: FindQuery;
  /** ESR properties (names lower-cased) and values that records must also have */
  filters: Array<[string, string]>;
  rows: number;
  ms: number;
}

function invalid(field: string, detail: string): FiscalError {
  return new FiscalError('#INVALID_VALUE', { field, detail });
}

export function parseLimit(text: string | undefined): { rows: number; ms: number } {
  if (text === undefined || text === '') return { ...DEFAULT_LIMIT };
  const m = /^(?:(\d{1,9})rows)?(?:(\d{1,9})ms)?$/i.exec(text.trim());
  if (!m || (m[1] === undefined && m[2] === undefined)) throw invalid('limit', `the form <N>rows<M>ms (e.g. 1000rows5000ms), got "${text}"`);
  const rows = m[1] === undefined ? DEFAULT_LIMIT.rows : Number(m[1]);
  const ms = m[2] === undefined ? DEFAULT_LIMIT.ms : Number(m[2]);
  if (rows < 1 || rows > MAX_ROWS) throw invalid('limit', `between 1 and ${MAX_ROWS} rows, got ${rows}`);
  if (ms > MAX_MS) throw invalid('limit', `at most ${MAX_MS} ms, got ${ms}`);
  return { rows, ms };
}

/** A date (whole day) or a date-time; `till` is inclusive. */
function dateBound(field: 'from' | 'till', text: string): string {
  if (isDate(text)) {
    if (field === 'from') return text;
    // the day after, as text: "9999-12-31" becomes "9999-12-31~", which sorts after every time of that day
    return `${text}~`;
  }
  const d = parseLocalDateTime(text);
  if (!d) throw invalid(field, `a date YYYY-MM-DD or a date-time YYYY-MM-DDThh:mm:ss, got "${text}"`);
  if (field === 'from') return text;
  return `${text}~`;
}

interface Continuation {
  rid: number;
  sort: 'asc' | 'desc';
  sq: number;
}

export function encodeContinuation(c: Continuation): string {
  return Buffer.from(`c1:${c.rid}:${c.sort}:${c.sq}`).toString('base64url');
}

function decodeContinuation(text: string, rid: number, sort: 'asc' | 'desc'): number {
  const m = /^c1:(\d+):(asc|desc):(\d+)$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!m || Number(m[1]) !== rid || m[2] !== sort) throw invalid('continuation', 'not a continuation of this search (register and sort must stay the same)');
  return Number(m[3]);
}

export function parseFind(q: Readonly<Record<string, string>>, rid: number, defaults: { sort: 'asc' | 'desc' } = { sort: 'desc' }): ParsedFind {
  const sortText = (q.sort ?? defaults.sort).toLowerCase();
  if (sortText !== 'asc' && sortText !== 'desc') throw invalid('sort', `asc or desc, got "${q.sort ?? ''}"`);
  const sort = sortText;
  const query: FindQuery = { sort };
  const type = q._;
  if (type !== undefined && type !== '') {
    if (!(RECORD_TYPES as readonly string[]).includes(type)) throw invalid('_', `one of ${RECORD_TYPES.join(', ')}, got "${type}"`);
    query.type = type as RecordType;
  }
  if (q.from) query.from = dateBound('from', q.from);
  if (q.till) query.before = dateBound('till', q.till);
  const filters: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(q)) {
    if (CONTROL.has(name)) continue;
    if (name === 'sq') {
      if (!/^\d{1,15}$/.test(value)) throw invalid('sq', `a whole number, got "${value}"`);
      query.sq = Number(value);
      continue;
    }
    const column = Object.hasOwn(INDEXED, name) ? INDEXED[name] : undefined;
    if (column) (query as unknown as Record<string, string>)[column] = value;
    else filters.push([name, value]);
  }
  if (q.continuation) query.afterSq = decodeContinuation(q.continuation, rid, sort);
  const { rows, ms } = parseLimit(q.limit);
  return { query, filters, rows, ms };
}

/** Whether a record's ESR (or the record itself) has every filtered property; names compare case-insensitively. */
export function matchesFilters(data: Obj, filters: ReadonlyArray<[string, string]>): boolean {
  if (filters.length === 0) return true;
  const esr = isObj(data.ESR) ? data.ESR : {};
  for (const [name, value] of filters) {
    const key = Object.keys(esr).find((k) => k.toLowerCase() === name) ?? Object.keys(data).find((k) => k.toLowerCase() === name);
    const actual = key === undefined ? undefined : (str(esr, key) ?? str(data, key));
    if (actual !== value) return false;
  }
  return true;
}
