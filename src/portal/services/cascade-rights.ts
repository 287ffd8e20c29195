/**
 * Who may set off the register part of a deactivation cascade: deactivating a company, location or organization
 * also deactivates registers (of a location: those of its company whose last TL is its identification), and that
 * needs ManageRegister on the registers' company (inherited from above as usual), not only ManageCompany on the
 * entity. Without it the request is refused (403 naming ManageRegister) before anything changes.
 */
import { notFound } from '../envelope.js';
import type { PortalContext } from '../context.js';
import { type Caller, requirePermission } from '../permissions.js';
import type { Entity, RegisterSearch } from '../store/types.js';

/** The registers a cascade from `target` would change now: not yet Deactivated, never a Discharged one. */
async function registersReached(ctx: PortalContext, target: Entity, locationIdentification: string | null): Promise<number[]> {
  const page = { offset: 0, limit: null, orderBy: 'registerNumber', descending: false } as const;
  let query: RegisterSearch;
  if (target.kind === 'location') {
    if (target.parentId === null || locationIdentification === null) return [];
    query = { ...page, parentId: target.parentId, tl: locationIdentification };
  } else {
    query = { ...page, parentId: target.id };
  }
  const found = await ctx.store.searchRegisters(query, { all: true });
  return [...new Set(found.items.filter((r) => r.state !== 'Deactivated' && r.state !== 'Discharged').map((r) => r.companyId))];
}

async function requireOnCompany(ctx: PortalContext, caller: Caller, companyId: number): Promise<void> {
  const company = await ctx.store.getEntity(companyId);
  if (!company) throw notFound(`Company ${companyId}`);
  requirePermission(caller, 'ManageRegister', company.path, `the registers of company ${companyId}`);
}

/**
 * A deactivation at once of `target` (with `locationIdentification` as it will be when the cascade runs):
 * ManageRegister on the company of every register it would change.
 */
export async function requireImmediateCascadeRights(ctx: PortalContext, caller: Caller, target: Entity, locationIdentification = target.locationIdentification): Promise<void> {
  for (const companyId of await registersReached(ctx, target, locationIdentification)) await requireOnCompany(ctx, caller, companyId);
}

/**
 * A scheduled deactivation of a company or location: which registers work there on the day is not known yet, so
 * scheduling needs ManageRegister on the company (a location's: its parent) whatever registers it has now.
 */
export async function requireScheduledCascadeRights(ctx: PortalContext, caller: Caller, target: Entity): Promise<void> {
  const companyId = target.kind === 'location' ? target.parentId : target.kind === 'company' ? target.id : null;
  if (companyId === null) return;
  await requireOnCompany(ctx, caller, companyId);
}
