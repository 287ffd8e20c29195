/**
 * `efr portal init`: creates the root organization and its first admin API client with all four permissions on
 * it. Refuses when an organization exists already. The secret is only shown in the answer (stored hashed).
 */
import type { Clock } from '../shared/clock.js';
import { hashSecret, newClientId, newSecret } from './auth/secrets.js';
import { withUniqueBadge } from './services/badges.js';
import { PERMISSIONS } from './validation/schemas.js';
import type { Entity, PortalStore } from './store/types.js';

export class AlreadyInitialised extends Error {}

export interface InitResult {
  organization: Entity;
  clientId: string;
  clientSecret: string;
}

export async function initPortal(store: PortalStore, clock: Clock, name = 'Root organization'): Promise<InitResult> {
  const existing = await store.searchEntities({ kind: 'organization', offset: 0, limit: 1, orderBy: 'id', descending: false }, { all: true });
  if (existing.totalCount > 0) throw new AlreadyInitialised(`the portal is already initialised (organization ${existing.items[0]?.id ?? '?'} exists)`);
  const now = clock.now();
  const organization = await withUniqueBadge((badge) =>
    store.createEntity(
      {
        kind: 'organization',
        parentId: null,
        name,
        address: null,
        city: null,
        zip: null,
        countryCode: null,
        invoiceEmailAddress: null,
        userComment: null,
        state: 'Productive',
        test: false,
        badge,
        taxId: null,
        ignoreTaxId: false,
        countryProperties: null,
        locationIdentification: null,
        deactivateAfter: null,
      },
      now,
    ),
  );
  const clientId = newClientId();
  const clientSecret = newSecret();
  await store.createClient({ clientId, name: 'admin', secretHash: hashSecret(clientSecret), createdAt: now.toISOString(), revokedAt: null });
  for (const permission of PERMISSIONS) await store.grant({ clientId, entityId: organization.id, permission });
  return { organization, clientId, clientSecret };
}
