/**
 * API clients: the token exchange (client credentials -> bearer token) and new clients made by a client. A
 * client may give a new client only permissions it holds itself on that entity, and only where it also holds
 * ManageCompany (managing an entity includes managing who may act on it).
 */
import { Issues, PortalError } from '../envelope.js';
import type { PortalContext } from '../context.js';
import { type Caller, holds, managesRoot, sees } from '../permissions.js';
import type { Permission } from '../store/types.js';
import { hashSecret, newClientId, newSecret, secretMatches } from '../auth/secrets.js';

export async function exchangeCredentials(ctx: PortalContext, clientId: string | undefined, secret: string | undefined): Promise<{ access_token: string; token_type: 'Bearer'; expires_in: number }> {
  if (!clientId || !secret) throw new PortalError('UNAUTHORIZED', { detail: 'client id and secret are required' });
  const client = await ctx.store.getClient(clientId);
  if (!client || client.revokedAt !== null || !secretMatches(secret, client.secretHash)) throw new PortalError('UNAUTHORIZED', { detail: 'unknown client or wrong secret' });
  return { access_token: await ctx.tokens.issue(clientId), token_type: 'Bearer', expires_in: ctx.tokens.ttlSeconds };
}

export interface NewClientBody {
  name: string;
  grants: Array<{ entityId: number; permission: Permission }>;
}

/** Makes a client with its grants; the secret is returned once. */
export async function createClient(ctx: PortalContext, caller: Caller | undefined, body: NewClientBody): Promise<{ clientId: string; clientSecret: string }> {
  if (caller) {
    const issues = new Issues();
    for (const [i, g] of body.grants.entries()) {
      const e = await ctx.store.getEntity(g.entityId);
      // an entity outside the caller's grants is refused like an unknown id: its existence is not told
      const hidden = !e || !sees(caller, e.path);
      if (hidden && managesRoot(caller)) issues.add(`grants.${i}.entityId`, 'parentMissing');
      else if (hidden || !holds(caller, 'ManageCompany', e.path) || !holds(caller, g.permission, e.path)) issues.add(`grants.${i}.permission`, 'grantPermission', { permission: g.permission, entityId: g.entityId });
    }
    if (issues.list.some((i) => i.key === 'grantPermission')) throw new PortalError('FORBIDDEN', { permission: 'ManageCompany', target: 'the entities of the grants' }, issues.list);
    issues.throwIfAny();
  }
  const clientId = newClientId();
  const clientSecret = newSecret();
  await ctx.store.createClient({ clientId, name: body.name, secretHash: hashSecret(clientSecret), createdAt: ctx.clock.now().toISOString(), revokedAt: null });
  for (const g of body.grants) await ctx.store.grant({ clientId, entityId: g.entityId, permission: g.permission });
  return { clientId, clientSecret };
}
