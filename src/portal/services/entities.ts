/**
 * Organizations, companies and locations: create, full update, get. The rules: the parent's kind, ManageCompany
 * on the parent (create) or the entity (update), ReadCompany to read; ISO country codes; tax ids by country
 * unless ignoreTaxId; Test cannot be undone and is inherited by everything created under a test entity; a company
 * created in a test organization gets two test locations; badges for organizations and companies.
 */
import { Issues, PortalError, invalid, notFound } from '../envelope.js';
import type { PortalContext } from '../context.js';
import { type Caller, managesRoot, requirePermission, sees } from '../permissions.js';
import { type Entity, type EntityKind, type EntityState, type EntityUpdate, type NewEntity, StoreConflict } from '../store/types.js';
import { checkCountryCode, checkLocationIdentification } from '../validation/entity-rules.js';
import { normalizeTaxId, taxIdProblem } from '../validation/tax-id.js';
import { withUniqueBadge } from './badges.js';
import { requireImmediateCascadeRights } from './cascade-rights.js';
import { deactivateNow } from './deactivation.js';
import { LABEL, entityWith } from './entity-access.js';

export interface EntityBody {
  parentEntityId?: number | null;
  name: string;
  address?: string | null;
  city?: string | null;
  zip?: string | null;
  countryCode?: string | null;
  invoiceEmailAddress?: string | null;
  userComment?: string | null;
  state?: EntityState | null;
  countryProperties?: Record<string, string> | null;
  taxId?: string | null;
  ignoreTaxId?: boolean | null;
  locationIdentification?: string;
}

const PARENT_KIND: Record<EntityKind, EntityKind> = { organization: 'organization', company: 'organization', location: 'company' };

export function getEntity(ctx: PortalContext, caller: Caller, id: number, kind: EntityKind): Promise<Entity> {
  return entityWith(ctx, caller, id, kind, 'ReadCompany');
}

const nul = <T>(v: T | null | undefined): T | null => (v === undefined ? null : v);

/** The fields every entity takes, as a create and a full update store them (absent optional ones as null). */
function commonFields(body: { name: string; address?: string | null; city?: string | null; zip?: string | null; countryCode?: string | null; invoiceEmailAddress?: string | null; userComment?: string | null }): Pick<NewEntity, 'name' | 'address' | 'city' | 'zip' | 'countryCode' | 'invoiceEmailAddress' | 'userComment'> {
  return {
    name: body.name,
    address: nul(body.address),
    city: nul(body.city),
    zip: nul(body.zip),
    countryCode: nul(body.countryCode),
    invoiceEmailAddress: nul(body.invoiceEmailAddress),
    userComment: nul(body.userComment),
  };
}

function checkCommon(issues: Issues, body: EntityBody): void {
  checkCountryCode(issues, 'countryCode', body.countryCode);
}

function checkTaxId(issues: Issues, taxId: string, countryCode: string | null | undefined): void {
  if (!countryCode || issues.has('countryCode')) return;
  const p = taxIdProblem(taxId, countryCode);
  if (p) issues.add('taxId', p.key, p.params);
}

async function createWithBadge(ctx: PortalContext, entity: NewEntity): Promise<Entity> {
  const now = ctx.clock.now();
  if (entity.kind === 'location') return ctx.store.createEntity(entity, now);
  return withUniqueBadge((badge) => ctx.store.createEntity({ ...entity, badge }, now));
}

async function createLocationRow(ctx: PortalContext, entity: NewEntity): Promise<Entity> {
  try {
    return await ctx.store.createEntity(entity, ctx.clock.now());
  } catch (e) {
    throw conflictOf(e);
  }
}

function conflictOf(e: unknown): unknown {
  if (e instanceof StoreConflict && e.field === 'locationIdentification') return new PortalError('CONFLICT', {}, [{ field: 'locationIdentification', key: 'locationIdentificationTaken' }]);
  return e;
}

/**
 * The parent of a new entity with ManageCompany on it. Whether an id exists is told only to a caller that could
 * act on it if it did: ManageCompany on a root organization (everything is under one). Anyone else gets the same
 * 403, naming `entity <id>`, for an unknown id as for an existing one outside its grants; one it sees but may
 * not manage is named by its kind.
 */
async function parentToManage(ctx: PortalContext, caller: Caller, parentId: number): Promise<Entity> {
  const parent = await ctx.store.getEntity(parentId);
  if (!parent || !sees(caller, parent.path)) {
    if (!managesRoot(caller)) throw new PortalError('FORBIDDEN', { permission: 'ManageCompany', target: `entity ${parentId}` });
    throw invalid([{ field: 'parentEntityId', key: 'parentMissing' }]);
  }
  requirePermission(caller, 'ManageCompany', parent.path, `${parent.kind} ${parent.id}`);
  return parent;
}

export async function createEntity(ctx: PortalContext, caller: Caller, kind: EntityKind, body: EntityBody): Promise<Entity> {
  const issues = new Issues();
  const parent = await parentToManage(ctx, caller, body.parentEntityId as number);
  if (parent.kind !== PARENT_KIND[kind]) issues.add('parentEntityId', 'parentKind', { kind: PARENT_KIND[kind] });
  else if (parent.state === 'Deactivated') issues.add('parentEntityId', 'parentDeactivated');
  checkCommon(issues, body);
  if (kind === 'company' && body.taxId && body.ignoreTaxId !== true) checkTaxId(issues, body.taxId, body.countryCode);
  if (kind === 'location' && body.locationIdentification !== undefined) checkLocationIdentification(issues, body.locationIdentification);
  issues.throwIfAny();

  const test = body.state === 'Test' || parent.test;
  const entity: NewEntity = {
    kind,
    parentId: parent.id,
    ...commonFields(body),
    state: test ? 'Test' : 'Productive',
    test,
    badge: null,
    taxId: kind === 'company' ? nul(body.taxId) : null,
    ignoreTaxId: kind === 'company' && body.ignoreTaxId === true,
    // organizations take countryProperties only on update (the spec's create has none); locations never
    countryProperties: kind === 'company' ? nul(body.countryProperties) : null,
    locationIdentification: kind === 'location' ? (body.locationIdentification ?? null) : null,
    deactivateAfter: null,
  };
  // a locationIdentification is unique within its company regardless of case: the store's constraint decides,
  // also between requests at the same time
  if (kind === 'location') return createLocationRow(ctx, entity);
  const created = await createWithBadge(ctx, entity);
  if (kind === 'company' && parent.kind === 'organization' && parent.test) await addTestLocations(ctx, created);
  return created;
}

/** 409 when an entity above `entity` is deactivated: what is under a deactivated entity stays deactivated. */
async function refuseUnderDeactivated(ctx: PortalContext, entity: Entity): Promise<void> {
  const ancestors = entity.path.split('/').filter(Boolean).map(Number).filter((x) => x !== entity.id);
  for (const ancestorId of ancestors) {
    const a = await ctx.store.getEntity(ancestorId);
    if (a?.state === 'Deactivated') {
      throw new PortalError('INVALID_STATE', { detail: `${LABEL[a.kind].toLowerCase()} ${a.id} above ${entity.kind} ${entity.id} is deactivated; reactivate it first` });
    }
  }
}

/** The two test locations of a company created in a test organization (TL `TEST-1` and `TEST-2`). */
async function addTestLocations(ctx: PortalContext, company: Entity): Promise<void> {
  for (const n of [1, 2]) {
    await createLocationRow(ctx, {
      kind: 'location',
      parentId: company.id,
      name: `Test location ${n}`,
      address: company.address,
      city: company.city,
      zip: company.zip,
      countryCode: company.countryCode,
      invoiceEmailAddress: null,
      userComment: null,
      state: 'Test',
      test: true,
      badge: null,
      taxId: null,
      ignoreTaxId: false,
      countryProperties: null,
      locationIdentification: `TEST-${n}`,
      deactivateAfter: null,
    });
  }
}

/**
 * Full update: optional fields that are absent are cleared; `state` and (companies) `taxId` absent mean
 * unchanged. State Deactivated deactivates the entity and everything under it at once.
 */
export async function updateEntity(ctx: PortalContext, caller: Caller, kind: EntityKind, id: number, body: EntityBody): Promise<Entity> {
  const current = await entityWith(ctx, caller, id, kind, 'ManageCompany');
  if (body.state === 'Deactivated' && current.state !== 'Deactivated') {
    // the cascade works with the identification this update gives the location
    const locationIdentification = kind === 'location' ? (body.locationIdentification ?? current.locationIdentification) : null;
    await requireImmediateCascadeRights(ctx, caller, current, locationIdentification);
  }
  const issues = new Issues();
  if (body.parentEntityId !== undefined && body.parentEntityId !== null && body.parentEntityId !== current.parentId) issues.add('parentEntityId', 'parentFixed');
  checkCommon(issues, body);
  const state = body.state ?? current.state;
  if (current.test && state === 'Productive') issues.add('state', 'testUndo');
  let taxId = current.taxId;
  if (kind === 'company' && body.taxId !== undefined && body.taxId !== null && normalizeTaxId(body.taxId) !== normalizeTaxId(current.taxId ?? '')) {
    if (!current.ignoreTaxId) issues.add('taxId', 'taxIdLocked');
    else taxId = body.taxId;
  }
  if (kind === 'company' && !current.ignoreTaxId && taxId && body.countryCode && body.countryCode !== current.countryCode) checkTaxId(issues, taxId, body.countryCode);
  if (kind === 'location' && body.locationIdentification !== undefined) checkLocationIdentification(issues, body.locationIdentification);
  issues.throwIfAny();
  const reactivated = current.state === 'Deactivated' && (state === 'Productive' || state === 'Test');
  if (body.state === 'Productive' || body.state === 'Test') await refuseUnderDeactivated(ctx, current);

  const test = current.test || state === 'Test';
  const update: EntityUpdate = {
    ...commonFields(body),
    state: state === 'Deactivated' ? current.state : state,
    test,
    taxId,
    ignoreTaxId: current.ignoreTaxId,
    countryProperties: kind === 'location' ? null : nul(body.countryProperties),
    locationIdentification: kind === 'location' ? (body.locationIdentification ?? current.locationIdentification) : null,
    // a reactivated entity drops its schedule: it has run (or was overtaken), and would deactivate it again
    deactivateAfter: reactivated ? null : current.deactivateAfter,
  };
  let updated: Entity | undefined;
  try {
    updated = await ctx.store.updateEntity(id, update, ctx.clock.now());
  } catch (e) {
    throw conflictOf(e);
  }
  if (!updated) throw notFound(`${LABEL[kind]} ${id}`);
  if (state === 'Deactivated' && current.state !== 'Deactivated') {
    await deactivateNow(ctx, id);
    updated = (await ctx.store.getEntity(id)) ?? updated;
  }
  return updated;
}
