/**
 * Permissions of API clients. A grant of a permission on an entity holds for that entity and everything under
 * it (its path is a prefix of theirs). ManageCompany implies ReadCompany and ManageRegister implies
 * ReadRegister; company and register permissions are independent of each other. Registers are judged by the
 * path of their owning company.
 *
 * An entity no grant of the caller covers is, to that caller, one that does not exist: the routes answer it
 * exactly like an id never used (404), so that ids of other organizations cannot be probed. 403 is left for
 * what the caller sees (some grant covers it) but may not do (read but not manage, company but not register
 * rights).
 */
import { PortalError } from './envelope.js';
import type { Permission, PortalStore, ReadScope } from './store/types.js';

export interface HeldGrant {
  permission: Permission;
  entityId: number;
  path: string;
}

export interface Caller {
  clientId: string;
  grants: readonly HeldGrant[];
}

const IMPLIED_BY: Record<Permission, readonly Permission[]> = {
  ReadCompany: ['ReadCompany', 'ManageCompany'],
  ManageCompany: ['ManageCompany'],
  ReadRegister: ['ReadRegister', 'ManageRegister'],
  ManageRegister: ['ManageRegister'],
};

export function holds(caller: Caller, permission: Permission, path: string): boolean {
  const accepted = IMPLIED_BY[permission];
  return caller.grants.some((g) => accepted.includes(g.permission) && path.startsWith(g.path));
}

/** Whether the caller may learn that the entity at `path` exists: a grant of any permission covers it. */
export function sees(caller: Caller, path: string): boolean {
  return caller.grants.some((g) => path.startsWith(g.path));
}

/**
 * ManageCompany on a root organization (a top-level path; the portal has one): everything is under it, so
 * nothing is hidden from such a caller and an unknown id may be named as such.
 */
export function managesRoot(caller: Caller): boolean {
  return caller.grants.some((g) => g.permission === 'ManageCompany' && /^\/[0-9]+\/$/.test(g.path));
}

export function requirePermission(caller: Caller, permission: Permission, path: string, target: string): void {
  if (!holds(caller, permission, path)) throw new PortalError('FORBIDDEN', { permission, target });
}

/** The prefixes a search of that read permission may return. */
export function readScope(caller: Caller, permission: 'ReadCompany' | 'ReadRegister'): ReadScope {
  const accepted = IMPLIED_BY[permission];
  const paths = [...new Set(caller.grants.filter((g) => accepted.includes(g.permission)).map((g) => g.path))];
  // a prefix under another prefix adds nothing
  const prefixes = paths.filter((p) => !paths.some((q) => q !== p && p.startsWith(q)));
  return { prefixes };
}

/** The caller's grants with the current paths of their entities (grants on entities that are gone are dropped). */
export async function loadCaller(store: PortalStore, clientId: string): Promise<Caller> {
  const grants: HeldGrant[] = [];
  const paths = new Map<number, string | undefined>();
  for (const g of await store.grantsOf(clientId)) {
    if (!paths.has(g.entityId)) paths.set(g.entityId, (await store.getEntity(g.entityId))?.path);
    const path = paths.get(g.entityId);
    if (path) grants.push({ permission: g.permission, entityId: g.entityId, path });
  }
  return { clientId, grants };
}
