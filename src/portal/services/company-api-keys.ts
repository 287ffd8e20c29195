/**
 * API credentials of a company for its cloud instances (efr-interface.md "Cloud instance":
 * additional instances of a company share the same credentials, shown in the company properties).
 *
 * - API clients make, list and revoke them: the key id `ck_` + 16 base64url characters (96 random bits), the
 *   secret 32 random bytes (base64url) answered once at creation; the store keeps only its SHA-256.
 * - A register service instance checks a key a POS logs in with (POST /auth/token there): valid only when the
 *   key is active and belongs to the instance's company (company badge) or to a company under the instance's
 *   organization (organization badge, Multi Company). The secret is compared by digest in constant time; an
 *   unknown key, a wrong secret and a key of a company the instance does not serve answer the same.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PortalContext } from '../context.js';
import { PortalError } from '../envelope.js';
import type { Caller } from '../permissions.js';
import type { CompanyApiKey, Entity, InstanceCredential } from '../store/types.js';
import { getEntity } from './entities.js';
import { entityWith } from './entity-access.js';
import { BADGE_SEPARATOR } from './recorder.js';

export const COMPANY_KEY_FORM = /^ck_[A-Za-z0-9_-]{16}$/;

const digestOf = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** A digest no secret has (compared against when the key is unknown: the same work either way). */
const NO_DIGEST = Buffer.alloc(32, 0xff);

/** True when the secret's SHA-256 is the stored hex digest; constant time whatever the inputs. */
export function secretMatches(secret: string, storedHex: string | undefined): boolean {
  const stored = storedHex !== undefined && /^[0-9a-f]{64}$/.test(storedHex) ? Buffer.from(storedHex, 'hex') : NO_DIGEST;
  return timingSafeEqual(digestOf(secret), stored) && stored !== NO_DIGEST;
}

/** A key as API clients see it: never the secret nor its digest. */
export interface CompanyApiKeyView {
  apiKey: string;
  companyId: number;
  name: string | null;
  creationTimestamp: string;
  revocationTimestamp: string | null;
  revoked: boolean;
}

export function companyApiKeyView(k: CompanyApiKey): CompanyApiKeyView {
  return { apiKey: k.apiKey, companyId: k.companyId, name: k.name, creationTimestamp: k.createdAt, revocationTimestamp: k.revokedAt, revoked: k.revokedAt !== null };
}

export async function createCompanyApiKey(ctx: PortalContext, caller: Caller, companyId: number, name: string | null | undefined): Promise<{ key: CompanyApiKey; secret: string }> {
  const company = await entityWith(ctx, caller, companyId, 'company', 'ManageCompany');
  if (company.state === 'Deactivated') throw new PortalError('INVALID_STATE', { detail: `company ${company.id} is deactivated` });
  const secret = randomBytes(32).toString('base64url');
  const key: CompanyApiKey = {
    apiKey: `ck_${randomBytes(12).toString('base64url')}`,
    companyId: company.id,
    secretHash: digestOf(secret).toString('hex'),
    name: name?.trim() ? name.trim() : null,
    createdAt: ctx.clock.now().toISOString(),
    revokedAt: null,
  };
  await ctx.store.createCompanyApiKey(key);
  ctx.log?.info({ type: 'COMPANY_API_KEY_CREATE', companyId: company.id, apiKey: key.apiKey, clientId: caller.clientId }, 'cloud API key created');
  return { key, secret };
}

export async function listCompanyApiKeys(ctx: PortalContext, caller: Caller, companyId: number): Promise<CompanyApiKey[]> {
  await getEntity(ctx, caller, companyId, 'company');
  return ctx.store.listCompanyApiKeys(companyId);
}

/** Revokes a key of the company (kept for the record); revoking it again answers it unchanged. */
export async function revokeCompanyApiKey(ctx: PortalContext, caller: Caller, companyId: number, apiKey: string): Promise<CompanyApiKey> {
  const company = await entityWith(ctx, caller, companyId, 'company', 'ManageCompany');
  const known = await ctx.store.getCompanyApiKey(apiKey);
  if (!known || known.companyId !== company.id) throw new PortalError('NOT_FOUND', { what: `API key ${apiKey.slice(0, 40)} of company ${company.id}` });
  const revoked = await ctx.store.revokeCompanyApiKey(apiKey, ctx.clock.now().toISOString());
  if (!revoked) throw new PortalError('NOT_FOUND', { what: `API key ${apiKey.slice(0, 40)} of company ${company.id}` });
  if (!known.revokedAt) ctx.log?.info({ type: 'COMPANY_API_KEY_REVOKE', companyId: company.id, apiKey, clientId: caller.clientId }, 'cloud API key revoked');
  return revoked;
}

export interface KeyVerification {
  valid: boolean;
  taxId: string | null;
  companyId: number | null;
  revoked: boolean;
}

const NOT_VALID: KeyVerification = { valid: false, taxId: null, companyId: null, revoked: false };

/**
 * The companies an instance serves: its company (company badge), or every company under the organization
 * whose badge it activated with (Multi Company). The badge may carry `/TL/TT`.
 */
async function serves(ctx: PortalContext, instance: InstanceCredential, company: Entity): Promise<boolean> {
  const badge = (instance.badge.split(BADGE_SEPARATOR)[0] ?? '').trim().toUpperCase();
  if (company.id === instance.companyId) return true;
  if (!badge) return false;
  const own = await ctx.store.getEntity(instance.companyId);
  if (!own) return false;
  // the organizations above the instance's company, nearest first: the one carrying the badge
  const above = own.path.split('/').filter(Boolean).map(Number).filter((id) => id !== own.id).reverse();
  for (const id of above) {
    const org = await ctx.store.getEntity(id);
    if (org?.kind === 'organization' && org.badge !== null && org.badge.toUpperCase() === badge) return company.path.startsWith(org.path);
  }
  return false;
}

/**
 * Checks a key (and, when given, its secret) for an instance. Without a secret it answers whether the key is
 * active for the instance (a refresh's revocation check); a revoked key is named revoked only when the secret
 * was right or not asked for.
 */
export async function verifyCompanyApiKey(ctx: PortalContext, instance: InstanceCredential, apiKey: string, apiSecret: string | undefined): Promise<KeyVerification> {
  const key = COMPANY_KEY_FORM.test(apiKey) ? await ctx.store.getCompanyApiKey(apiKey) : undefined;
  const secretOk = apiSecret === undefined ? key !== undefined : secretMatches(apiSecret, key?.secretHash);
  if (!key || !secretOk) return NOT_VALID;
  const company = await ctx.store.getEntity(key.companyId);
  if (!company || company.kind !== 'company' || !(await serves(ctx, instance, company))) return NOT_VALID;
  const revoked = key.revokedAt !== null;
  const valid = !revoked && company.state !== 'Deactivated';
  return { valid, taxId: company.taxId, companyId: company.id, revoked };
}
