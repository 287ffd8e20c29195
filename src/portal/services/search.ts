/**
 * Searches of organizations, companies, locations and registers: the spec's filters, paging (limit 0 to 250,
 * default 100, 0 = no limit; offset >= 0), a whitelist of sort fields, and only what the caller may read
 * (the paths of its ReadCompany/ReadRegister grants as prefixes).
 */
import { Issues } from '../envelope.js';
import type { PortalContext } from '../context.js';
import { type Caller, readScope } from '../permissions.js';
import type { Entity, EntityKind, EntityState, Register, RegisterState, SearchPage } from '../store/types.js';

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

const iso = (s: string | null | undefined): string | undefined => (s ? new Date(s).toISOString() : undefined);
const seconds = (s: string | null | undefined): number | undefined => (s ? Math.floor(new Date(s).getTime() / 1000) : undefined);
const def = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

/** The filters every search takes (state is typed per search). */
function sharedFilters(body: SearchBody): { parentId: number | undefined; createdAfter: string | undefined; hasUserComment: boolean | undefined; hasDeactivateAfter: boolean | undefined; searchText: string | undefined; countryCode: string | undefined } {
  return {
    parentId: def(body.parentEntityId),
    createdAfter: iso(body.createdAfter),
    hasUserComment: def(body.hasUserComment),
    hasDeactivateAfter: def(body.hasDeactivateAfterTimestamp),
    searchText: body.searchText || undefined,
    countryCode: body.countryCode ? body.countryCode.toUpperCase() : undefined,
  };
}

export interface Found<T> {
  currentCount: number;
  totalCount: number;
  foundItems: T[];
}

export async function searchEntities(ctx: PortalContext, caller: Caller, kind: EntityKind, body: SearchBody): Promise<Found<Entity>> {
  const issues = new Issues();
  const p = page(issues, body ?? {}, ENTITY_ORDER[kind], 'name');
  issues.throwIfAny();
  const result = await ctx.store.searchEntities(
    {
      ...p,
      kind,
      ...strip({
        ...sharedFilters(body),
        state: def(body.state) as EntityState | undefined,
      }),
    },
    readScope(caller, 'ReadCompany'),
  );
  return { currentCount: result.items.length, totalCount: result.totalCount, foundItems: result.items };
}

export async function searchRegisters(ctx: PortalContext, caller: Caller, body: SearchBody): Promise<Found<Register>> {
  const issues = new Issues();
  const p = page(issues, body ?? {}, REGISTER_ORDER, 'registerNumber');
  issues.throwIfAny();
  const result = await ctx.store.searchRegisters(
    {
      ...p,
      ...strip({
        ...sharedFilters(body),
        state: def(body.state) as RegisterState | undefined,
        tl: def(body.tl),
        tt: def(body.tt),
        firstTransactionAfter: seconds(body.firstTransactionAfter),
        firstTransactionBefore: seconds(body.firstTransactionBefore),
        lastTransactionAfter: seconds(body.lastTransactionAfter),
        lastTransactionBefore: seconds(body.lastTransactionBefore),
      }),
    },
    readScope(caller, 'ReadRegister'),
  );
  return { currentCount: result.items.length, totalCount: result.totalCount, foundItems: result.items };
}

/** Drops the undefined members (exactOptionalPropertyTypes-friendly queries). */
function strip<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
