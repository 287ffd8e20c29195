/**
 * The search of the journal page: the form's fields become a query of GET /find (parseFind: the same indexed
 * criteria, date bounds, limit and continuation), run by the same page loop (findPage); the amount is an extra
 * filter on the record's total ESR.T compared as a decimal (12.5 finds 12.50), never as a JavaScript number.
 */
import { FiscalError, type Lang } from '../../shared/errors.js';
import { type Obj, obj, str } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import { parseFind } from '../journal/find-query.js';
import type { Register } from '../registers.js';
import { type FoundPage, findPage } from '../routes/journal.js';
import { type Dec, eq, parseDec } from '../../shared/money.js';

/** Rows per page of the journal page. */
export const PAGE_ROWS = 50;
/** How long one page may search (as GET /find's limit). */
export const PAGE_MS = 5000;

/** The form's fields, as typed. */
export const SEARCH_FIELDS = ['rn', 'from', 'till', 'fn', 'tl', 'tt', 'tn', 'amount', 'type', 'unprinted'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];
export type SearchInput = Partial<Record<SearchField, string>>;

export function searchInputOf(q: Readonly<Record<string, string | undefined>>): SearchInput {
  const input: SearchInput = {};
  for (const f of SEARCH_FIELDS) {
    const v = q[f];
    if (typeof v === 'string' && v.trim() !== '') input[f] = v.trim();
  }
  return input;
}

/** The amount as typed: a decimal with a point or a comma; undefined when it is none. */
export function amountOf(text: string): Dec | undefined {
  const normal = /^[+-]?\d*,\d+$/.test(text) ? text.replace(',', '.') : text;
  return parseDec(normal);
}

/** The record's total equals the amount (as decimals). */
export function totalIs(amount: Dec): (view: Obj) => boolean {
  return (view) => {
    const t = str(obj(view, 'ESR') ?? {}, 'T');
    const d = t === undefined ? undefined : parseDec(t);
    return d !== undefined && eq(d, amount);
  };
}

export interface SearchError {
  field: string;
  message: string;
}

export type SearchOutcome = { ok: true; page: FoundPage } | { ok: false; error: SearchError };

/**
 * Runs the search over a register: parseFind refuses what GET /find refuses (with the field it names);
 * `amountMessage` words the refusal of an amount that is no decimal. With `unprinted` set (the form's box),
 * only the receipts of that set (their SQ) are found.
 */
export async function searchJournal(ctx: ServiceContext, reg: Register, input: SearchInput, continuation: string | undefined, lang: Lang, amountMessage: (value: string) => string, unprinted?: ReadonlySet<number>): Promise<SearchOutcome> {
  let amount: Dec | undefined;
  if (input.amount !== undefined) {
    amount = amountOf(input.amount);
    if (!amount) return { ok: false, error: { field: 'amount', message: amountMessage(input.amount) } };
  }
  const q: Record<string, string> = { limit: `${PAGE_ROWS}rows${PAGE_MS}ms`, sort: 'desc' };
  for (const f of ['from', 'till', 'fn', 'tl', 'tt', 'tn'] as const) if (input[f] !== undefined) q[f] = input[f];
  if (input.type !== undefined) q._ = input.type;
  if (continuation) q.continuation = continuation;
  try {
    const parsed = parseFind(q, reg.state.rid);
    const filters = [amount ? totalIs(amount) : undefined, input.unprinted !== undefined && unprinted ? (v: Obj) => unprinted.has(Number(str(v, 'SQ'))) : undefined].filter((x) => x !== undefined);
    const filter = filters.length ? (v: Obj): boolean => filters.every((keep) => keep(v)) : undefined;
    return { ok: true, page: await findPage(ctx, reg.state.rid, parsed, filter) };
  } catch (e) {
    if (e instanceof FiscalError && e.status < 500) {
      const field = typeof e.params.field === 'string' ? (e.params.field === '_' ? 'type' : e.params.field) : 'search';
      return { ok: false, error: { field, message: e.localized(lang) } };
    }
    throw e;
  }
}
