/**
 * The WHERE and ORDER BY of entity and register searches, written once for both databases: a Dialect
 * supplies what differs (placeholders, booleans, time parameters, text ordering, the text condition).
 * Every value is bound; only whitelisted column names and fixed SQL enter the text.
 */
import { scopeRanges, type PathRange } from './scope.js';
import { isoTime } from './times.js';
import {
  ENTITY_SORT_FIELDS, REGISTER_SORT_FIELDS, StoreBadQuery,
  type EntitySearch, type EntitySortField, type ReadScope, type RegisterSearch, type RegisterSortField, type SearchPage,
} from './types.js';

export interface Dialect {
  /** adds a value to the parameters and gives its placeholder */
  bind(params: unknown[], value: unknown): string;
  /** a time parameter (normalized ISO string) as an expression comparable with the time columns */
  time(params: unknown[], iso: string): string;
  /** the ordering expression(s) of a text column: case-insensitive first, then exact */
  textOrder(column: string): string[];
  /** an exact-text expression (tie breaks on text keys) */
  exact(column: string): string;
  /** the search column contains the text, case-insensitively (a text with SEARCH_SEPARATOR never reaches it) */
  contains(params: unknown[], column: string, text: string): string;
  /** the expression lower-cased over all of Unicode, as the search column and the sort keys are */
  lower(expression: string): string;
  /** LIMIT / OFFSET */
  page(params: unknown[], offset: number, limit: number | null): string;
}

type ColumnType = 'text' | 'number' | 'time' | 'bool';

const ENTITY_COLUMNS: Record<EntitySortField, [string, ColumnType]> = {
  id: ['id', 'number'],
  parentId: ['parent_id', 'number'],
  name: ['name', 'text'],
  address: ['address', 'text'],
  city: ['city', 'text'],
  zip: ['zip', 'text'],
  countryCode: ['country_code', 'text'],
  invoiceEmailAddress: ['invoice_email_address', 'text'],
  userComment: ['user_comment', 'text'],
  state: ['state', 'text'],
  badge: ['badge', 'text'],
  taxId: ['tax_id', 'text'],
  locationIdentification: ['location_identification', 'text'],
  deactivateAfter: ['deactivate_after', 'time'],
  createdAt: ['created_at', 'time'],
  updatedAt: ['updated_at', 'time'],
};

const REGISTER_COLUMNS: Record<RegisterSortField, [string, ColumnType]> = {
  registerNumber: ['register_number', 'text'],
  companyId: ['company_id', 'number'],
  countryCode: ['country_code', 'text'],
  lastTL: ['last_tl', 'text'],
  lastTT: ['last_tt', 'text'],
  userComment: ['user_comment', 'text'],
  firstTransaction: ['first_transaction', 'number'],
  lastTransaction: ['last_transaction', 'number'],
  versionNumber: ['version_number', 'text'],
  state: ['state', 'text'],
  isCloudEFR: ['is_cloud_efr', 'bool'],
  dischargeAfter: ['discharge_after', 'time'],
  createdAt: ['created_at', 'time'],
  updatedAt: ['updated_at', 'time'],
};

function isOneOf<T extends string>(list: readonly T[], value: string): value is T {
  return (list as readonly string[]).includes(value);
}

function checkPage(page: SearchPage): void {
  if (!Number.isSafeInteger(page.offset) || page.offset < 0) throw new StoreBadQuery('offset', 'offset must be an integer of 0 or more');
  if (page.limit !== null && (!Number.isSafeInteger(page.limit) || page.limit < 0)) throw new StoreBadQuery('limit', 'limit must be an integer of 0 or more, or null');
}

function orderBy(d: Dialect, alias: string, [column, type]: [string, ColumnType], descending: boolean, tieBreak: string): string {
  const dir = descending ? 'DESC' : 'ASC';
  const keys = type === 'text' ? d.textOrder(`${alias}.${column}`) : [`${alias}.${column}`];
  return `ORDER BY ${keys.map((k) => `${k} ${dir} NULLS LAST`).join(', ')}, ${tieBreak} ${dir}`;
}

function rangeCondition(d: Dialect, params: unknown[], column: string, ranges: PathRange[]): string {
  return `(${ranges.map((r) => `(${column} >= ${d.bind(params, r.from)} AND ${column} < ${d.bind(params, r.to)})`).join(' OR ')})`;
}

/** searchText: a text holding the separator of the fields would match across two of them, so it matches nothing */
function textCondition(d: Dialect, params: unknown[], column: string, text: string): string {
  return text.includes(SEARCH_SEPARATOR) ? '1 = 0' : d.contains(params, column, text);
}

function commentCondition(column: string, has: boolean): string {
  return has ? `(${column} IS NOT NULL AND ${column} <> '')` : `(${column} IS NULL OR ${column} = '')`;
}

/** The parts of one search (null from the builders when the scope allows nothing: the answer is empty). */
export interface SearchSql {
  where: string;
  order: string;
  page: string;
  /** the values of `where` alone (for the count) */
  whereParams: unknown[];
  /** the values of `where` and then of `page` (for the page) */
  pageParams: unknown[];
}

function finish(d: Dialect, where: string, order: string, params: unknown[], q: SearchPage): SearchSql {
  const pageParams = [...params];
  const page = d.page(pageParams, q.offset, q.limit);
  return { where, order, page, whereParams: params, pageParams };
}

/** Entity search over `entities e`. */
export function entitySearchSql(d: Dialect, q: EntitySearch, scope: ReadScope): SearchSql | null {
  checkPage(q);
  if (!isOneOf(ENTITY_SORT_FIELDS, q.orderBy)) throw new StoreBadQuery('orderBy', `cannot order entities by ${JSON.stringify(q.orderBy)}`);
  const ranges = scopeRanges(scope);
  if (ranges !== null && ranges.length === 0) return null;
  const params: unknown[] = [];
  const c: string[] = [`e.kind = ${d.bind(params, q.kind)}`];
  if (ranges !== null) c.push(rangeCondition(d, params, 'e.path', ranges));
  if (q.parentId !== undefined) c.push(`e.parent_id = ${d.bind(params, q.parentId)}`);
  if (q.createdAfter !== undefined) c.push(`e.created_at > ${d.time(params, isoTime(q.createdAfter, 'createdAfter'))}`);
  if (q.hasUserComment !== undefined) c.push(commentCondition('e.user_comment', q.hasUserComment));
  if (q.hasDeactivateAfter !== undefined) c.push(`e.deactivate_after IS ${q.hasDeactivateAfter ? 'NOT ' : ''}NULL`);
  if (q.searchText !== undefined && q.searchText !== '') c.push(textCondition(d, params, 'e.search', q.searchText));
  if (q.state !== undefined) c.push(`e.state = ${d.bind(params, q.state)}`);
  if (q.countryCode !== undefined) c.push(`upper(e.country_code) = upper(${d.bind(params, q.countryCode)})`);
  const where = `WHERE ${c.join(' AND ')}`;
  return finish(d, where, orderBy(d, 'e', ENTITY_COLUMNS[q.orderBy], q.descending, 'e.id'), params, q);
}

/** Register search over `registers r JOIN entities c ON c.id = r.company_id`. */
export function registerSearchSql(d: Dialect, q: RegisterSearch, scope: ReadScope): SearchSql | null {
  checkPage(q);
  if (!isOneOf(REGISTER_SORT_FIELDS, q.orderBy)) throw new StoreBadQuery('orderBy', `cannot order registers by ${JSON.stringify(q.orderBy)}`);
  const ranges = scopeRanges(scope);
  if (ranges !== null && ranges.length === 0) return null;
  const params: unknown[] = [];
  const c: string[] = [];
  if (ranges !== null) c.push(rangeCondition(d, params, 'c.path', ranges));
  if (q.parentId !== undefined) {
    const a = d.bind(params, q.parentId);
    const b = d.bind(params, q.parentId);
    // an organization or company: the companies under it (or itself); a location: its company's registers
    // working at it (lastTL = its locationIdentification)
    c.push(`(EXISTS (SELECT 1 FROM entities p WHERE p.id = ${a} AND c.path >= p.path AND c.path < (substr(p.path, 1, length(p.path) - 1) || '0'))`
      + ` OR EXISTS (SELECT 1 FROM entities l WHERE l.id = ${b} AND l.kind = 'location' AND l.parent_id = r.company_id AND ${d.lower('l.location_identification')} = ${d.lower('r.last_tl')}))`);
  }
  if (q.createdAfter !== undefined) c.push(`r.created_at > ${d.time(params, isoTime(q.createdAfter, 'createdAfter'))}`);
  if (q.hasUserComment !== undefined) c.push(commentCondition('r.user_comment', q.hasUserComment));
  if (q.hasDeactivateAfter !== undefined) c.push(`r.discharge_after IS ${q.hasDeactivateAfter ? 'NOT ' : ''}NULL`);
  if (q.searchText !== undefined && q.searchText !== '') c.push(textCondition(d, params, 'r.search', q.searchText));
  if (q.state !== undefined) c.push(`r.state = ${d.bind(params, q.state)}`);
  if (q.countryCode !== undefined) c.push(`upper(r.country_code) = upper(${d.bind(params, q.countryCode)})`);
  if (q.tl !== undefined) c.push(`${d.lower('r.last_tl')} = ${d.lower(d.bind(params, q.tl))}`);
  if (q.tt !== undefined) c.push(`${d.lower('r.last_tt')} = ${d.lower(d.bind(params, q.tt))}`);
  const bounds: [number | undefined, string, string][] = [
    [q.firstTransactionAfter, 'r.first_transaction', '>'],
    [q.firstTransactionBefore, 'r.first_transaction', '<'],
    [q.lastTransactionAfter, 'r.last_transaction', '>'],
    [q.lastTransactionBefore, 'r.last_transaction', '<'],
  ];
  for (const [value, column, op] of bounds) {
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value)) throw new StoreBadQuery(column, 'transaction time bounds are whole Unix seconds');
    c.push(`${column} ${op} ${d.bind(params, value)}`);
  }
  const where = c.length ? `WHERE ${c.join(' AND ')}` : '';
  return finish(d, where, orderBy(d, 'r', REGISTER_COLUMNS[q.orderBy], q.descending, d.exact('r.register_number')), params, q);
}

/** The total of a page: known without counting when the page is not full (and not past the end). */
export function totalWithoutCount(offset: number, limit: number | null, got: number): number | undefined {
  if ((limit === null || got < limit) && (got > 0 || offset === 0)) return offset + got;
  return undefined;
}

/** The search text of an entity as SQLite stores it (PostgreSQL computes the same in a generated column). */
export const ENTITY_SEARCH_COLUMNS = ['name', 'user_comment', 'city', 'address', 'zip', 'tax_id', 'location_identification', 'badge', 'invoice_email_address'] as const;
export const REGISTER_SEARCH_COLUMNS = ['register_number', 'user_comment', 'last_tl', 'last_tt', 'version_number'] as const;
/** between the fields of the search text, so that a text does not match across two of them by accident */
export const SEARCH_SEPARATOR = '\u001f';

export function searchText(values: readonly (string | null)[]): string {
  return values.map((v) => v ?? '').join(SEARCH_SEPARATOR).toLowerCase();
}
