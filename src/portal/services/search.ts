/**
 * Searches of organizations, companies, locations and registers: the spec's filters, paging (limit 0 to 250,
 * default 100, 0 = no limit; offset >= 0), a whitelist of sort fields, and only what the caller may read
 * (the paths of its ReadCompany/ReadRegister grants as prefixes).
 */
import { Issues } from '../envelope.js';
import type { PortalContext } from '../context.js';
import { type Caller, readScope } from '../permissions.js';
import { SEARCH_SEPARATOR } from '../store/search-sql.js';
import type { Entity, EntityKind, EntityState, Register, RegisterState, SearchPage } from '../store/types.js';
import { dateTimeField } from '../validation/date-time.js';

export interface SearchBody {
  parentEntityId?: number | null;
  createdAfter?: string | null;
  hasUserComment?: boolean | null;
  hasDeactivateAfterTimestamp?: boolean | null;
  searchText?: string | null;
  orderByField?: string | null;
  orderDescending?: boolean | null;
  state?: string | null;
  offset?: number | null;
  limit?: number | null;
  countryCode?: string | null;
  tl?: string | null;
  tt?: string | null;
  firstTransactionAfter?: string | null;
  firstTransactionBefore?: string | null;
  lastTransactionAfter?: string | null;
  lastTransactionBefore?: string | null;
}

export const DEFAULT_LIMIT = 100;

/** Sort fields: API name (matched case-insensitively) and the store's field. */
type OrderList = ReadonlyArray<readonly [string, string]>;
const COMMON_ORDER: OrderList = [
  ['id', 'id'],
  ['name', 'name'],
  ['city', 'city'],
  ['zip', 'zip'],
  ['countryCode', 'countryCode'],
  ['state', 'state'],
  ['creationTimestamp', 'createdAt'],
  ['lastModifiedTimestamp', 'updatedAt'],
  ['deactivateAfterTimestamp', 'deactivateAfter'],
];
export const ENTITY_ORDER: Record<EntityKind, OrderList> = {
  organization: [...COMMON_ORDER, ['badge', 'badge']],
  company: [...COMMON_ORDER, ['badge', 'badge'], ['taxId', 'taxId']],
  location: [...COMMON_ORDER, ['locationIdentification', 'locationIdentification']],
};
export const REGISTER_ORDER: OrderList = [
  ['registerNumber', 'registerNumber'],
  ['countryCode', 'countryCode'],
  ['lastTL', 'lastTL'],
  ['lastTT', 'lastTT'],
  ['state', 'state'],
  ['versionNumber', 'versionNumber'],
  ['firstTransaction', 'firstTransaction'],
  ['lastTransaction', 'lastTransaction'],
  ['creationTimestamp', 'createdAt'],
];

function page(issues: Issues, body: SearchBody, order: OrderList, defaultOrder: string): SearchPage {
  const asked = body.orderByField ?? undefined;
  const orderBy = asked ? order.find(([api]) => api.toLowerCase() === asked.toLowerCase())?.[1] : defaultOrder;
  if (!orderBy) issues.add('orderByField', 'orderByField', { values: order.map(([api]) => api).join(', ') });
  const limit = body.limit === undefined || body.limit === null ? DEFAULT_LIMIT : body.limit === 0 ? null : body.limit;
  return { offset: body.offset ?? 0, limit, orderBy: orderBy ?? defaultOrder, descending: body.orderDescending === true };
}

const def = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

/** The filters every search takes (state is typed per search); bad date-times and texts are added to `issues`. */
function sharedFilters(issues: Issues, body: SearchBody): { parentId: number | undefined; createdAfter: string | undefined; hasUserComment: boolean | undefined; hasDeactivateAfter: boolean | undefined; searchText: string | undefined; countryCode: string | undefined } {
  const createdAfter = dateTimeField(issues, 'createdAfter', body.createdAfter);
  // the store keeps the fields of the search text apart with U+001F: a text with it could match across two fields
  if (body.searchText?.includes(SEARCH_SEPARATOR)) issues.add('searchText', 'separator');
  return {
    parentId: def(body.parentEntityId),
    createdAfter: createdAfter === undefined ? undefined : new Date(createdAfter).toISOString(),
    hasUserComment: def(body.hasUserComment),
    hasDeactivateAfter: def(body.hasDeactivateAfterTimestamp),
    searchText: body.searchText || undefined,
    countryCode: body.countryCode ? body.countryCode.toUpperCase() : undefined,
  };
}

/** A transaction bound in Unix seconds (the registers' firstTransaction/lastTransaction are whole seconds). */
function seconds(issues: Issues, field: string, text: string | null | undefined): number | undefined {
  const t = dateTimeField(issues, field, text);
  return t === undefined ? undefined : Math.floor(t / 1000);
}

export interface Found<T> {
  currentCount: number;
  totalCount: number;
  foundItems: T[];
}

export async function searchEntities(ctx: PortalContext, caller: Caller, kind: EntityKind, body: SearchBody): Promise<Found<Entity>> {
  const issues = new Issues();
  const p = page(issues, body, ENTITY_ORDER[kind], 'name');
  const filters = sharedFilters(issues, body);
  issues.throwIfAny();
  const result = await ctx.store.searchEntities(
    {
      ...p,
      kind,
      ...strip({
        ...filters,
        state: def(body.state) as EntityState | undefined,
      }),
    },
    readScope(caller, 'ReadCompany'),
  );
  return { currentCount: result.items.length, totalCount: result.totalCount, foundItems: result.items };
}

export async function searchRegisters(ctx: PortalContext, caller: Caller, body: SearchBody): Promise<Found<Register>> {
  const issues = new Issues();
  const p = page(issues, body, REGISTER_ORDER, 'registerNumber');
  const filters = {
    ...sharedFilters(issues, body),
    state: def(body.state) as RegisterState | undefined,
    tl: def(body.tl),
    tt: def(body.tt),
    firstTransactionAfter: seconds(issues, 'firstTransactionAfter', body.firstTransactionAfter),
    firstTransactionBefore: seconds(issues, 'firstTransactionBefore', body.firstTransactionBefore),
    lastTransactionAfter: seconds(issues, 'lastTransactionAfter', body.lastTransactionAfter),
    lastTransactionBefore: seconds(issues, 'lastTransactionBefore', body.lastTransactionBefore),
  };
  issues.throwIfAny();
  const result = await ctx.store.searchRegisters({ ...p, ...strip(filters) }, readScope(caller, 'ReadRegister'));
  return { currentCount: result.items.length, totalCount: result.totalCount, foundItems: result.items };
}

/** Drops the undefined members (exactOptionalPropertyTypes-friendly queries). */
function strip<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
