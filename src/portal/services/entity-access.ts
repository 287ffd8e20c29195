// The access check every service of an entity starts with, apart from the entity service so that deactivation,
// which the entity service calls, can check its caller without importing it.
import { notFound } from '../envelope.js';
import type { PortalContext } from '../context.js';
import { type Caller, requirePermission, sees } from '../permissions.js';
import type { Entity, EntityKind } from '../store/types.js';

export const LABEL: Record<EntityKind, string> = { organization: 'Organization', company: 'Company', location: 'Location' };

/**
 * The entity of that kind on which the caller holds `permission`. NOT_FOUND, worded the same, for an id never
 * used, an entity of another kind and one outside every grant of the caller; FORBIDDEN only for one the caller
 * sees but may not act on that way.
 */
export async function entityWith(ctx: PortalContext, caller: Caller, id: number, kind: EntityKind, permission: 'ReadCompany' | 'ManageCompany'): Promise<Entity> {
  const e = await ctx.store.getEntity(id);
  if (!e || e.kind !== kind || !sees(caller, e.path)) throw notFound(`${LABEL[kind]} ${id}`);
  requirePermission(caller, permission, e.path, `${kind} ${id}`);
  return e;
}
