/**
 * The portal's side of the recorder: activation of a register service instance by
 * badge, and the archive of its journal records.
 *
 * Activation: the badge of a company (optionally `BADGE/TL/TT`), or of an organization (Multi Company: the
 * instance names the company by TaxId). The register record is created or updated, the instance gets the
 * central Cfg (company and location base data) and a credential (a random token, stored as SHA-256 only).
 * Archive: records of the credential's register, in SQ order; each one's hash is checked against the chain
 * (the previous stored record, or GENESIS for SQ 1); a record already stored is accepted again when it is
 * the same and refused (409) when it differs. A batch that starts after SQ 1 without the record before it is
 * accepted unchecked only as the register's first (a journal cleaned before activation); once the portal holds
 * records of the register it is refused (409, records.0.sq), as is any gap.
 */
import { createHash, randomBytes } from 'node:crypto';
import { transactionHandle } from '../../register/render/index.js';
import type { PortalContext } from '../context.js';
import { PortalError } from '../envelope.js';
import { heardFrom } from '../notifications/lifecycle.js';
import type { ArchivedRecord, Entity, InstanceCredential, Register } from '../store/types.js';

export const GENESIS = '0'.repeat(64);
/** The separator of a company badge with location and terminal appended: `K7QX-M3RA-9TZW/Shop-1/POS-2`. */
export const BADGE_SEPARATOR = '/';

export interface ActivationRequest {
  badge: string;
  registerNumber?: string;
  taxId?: string;
  tl?: string;
  tt?: string;
  versionNumber?: string;
  isCloudEFR?: boolean;
  countryCode?: string;
  /** digital receipts: the instance's register handle of this register (16 characters A-Z, 2-7) */
  registerHandle?: string;
}

export interface Activation {
  token: string;
  registerNumber: string;
  companyId: number;
  state: Register['state'];
  tl: string | null;
  tt: string | null;
  /** the central configuration for the register: Cmp and (when the location is known) Loc */
  cfg: Record<string, Record<string, string>>;
}

export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

const bad = (field: string, detail: string): PortalError => new PortalError('VALIDATION_FAILED', {}, [{ field, key: 'format', params: { format: detail } }]);

async function entityByBadge(ctx: PortalContext, badge: string): Promise<Entity | undefined> {
  for (const kind of ['company', 'organization'] as const) {
    const found = await ctx.store.searchEntities({ kind, searchText: badge, offset: 0, limit: 50, orderBy: 'id', descending: false }, { all: true });
    const e = found.items.find((x) => x.badge !== null && x.badge.toUpperCase() === badge.toUpperCase());
    if (e) return e;
  }
  return undefined;
}

const normTax = (t: string): string => t.replace(/[\s./-]/g, '').toUpperCase();

async function companyOfOrganization(ctx: PortalContext, org: Entity, taxId: string | undefined): Promise<Entity> {
  if (!taxId) throw bad('taxId', 'an organization badge (Multi Company) needs the TaxId of the company');
  const found = await ctx.store.searchEntities({ kind: 'company', offset: 0, limit: null, orderBy: 'id', descending: false }, { prefixes: [org.path] });
  const want = normTax(taxId);
  const c = found.items.find((x) => x.taxId !== null && (normTax(x.taxId) === want || normTax(x.taxId).endsWith(want) || want.endsWith(normTax(x.taxId))));
  if (!c) throw new PortalError('NOT_FOUND', { what: `A company with TaxId ${taxId} under the organization of the badge` });
  return c;
}

async function locationOf(ctx: PortalContext, company: Entity, tl: string): Promise<Entity | undefined> {
  const found = await ctx.store.searchEntities({ kind: 'location', parentId: company.id, offset: 0, limit: null, orderBy: 'id', descending: false }, { all: true });
  return found.items.find((l) => l.locationIdentification !== null && l.locationIdentification.toLowerCase() === tl.toLowerCase());
}

function put(target: Record<string, string>, key: string, value: string | null): void {
  if (value !== null && value !== '') target[key] = value;
}

/** Name and address of an entity as a Cfg part (Cmp, Loc) has them; empty values left out. */
export function cfgPartOf(e: { name: string; address: string | null; zip: string | null; city: string | null; countryCode: string | null }): Record<string, string> {
  const part: Record<string, string> = {};
  put(part, 'Nam', e.name);
  put(part, 'Adr', e.address);
  put(part, 'Zip', e.zip);
  put(part, 'City', e.city);
  put(part, 'Ctry', e.countryCode);
  return part;
}

/** A register handle already bound to another register is refused (two instances never share one). */
async function checkRegisterHandle(ctx: PortalContext, handle: string | undefined, registerNumber: string): Promise<void> {
  if (!handle) return;
  const bound = await ctx.store.registerOfHandle(handle);
  if (bound !== undefined && bound !== registerNumber) {
    throw new PortalError('CONFLICT', {}, [{ field: 'registerHandle', key: 'format', params: { format: 'a register handle not used for another register' } }]);
  }
}

export async function activate(ctx: PortalContext, req: ActivationRequest): Promise<Activation> {
  const parts = req.badge.trim().split(BADGE_SEPARATOR);
  const badge = parts[0] ?? '';
  if (!badge) throw bad('badge', 'a badge is required');
  const entity = await entityByBadge(ctx, badge);
  if (!entity) throw new PortalError('NOT_FOUND', { what: 'The badge' });
  const company = entity.kind === 'company' ? entity : await companyOfOrganization(ctx, entity, req.taxId);
  if (company.state === 'Deactivated') throw new PortalError('INVALID_STATE', { detail: `company ${company.id} is deactivated` });
  const tl = parts[1] || req.tl || null;
  const tt = parts[2] || req.tt || null;
  const location = tl ? await locationOf(ctx, company, tl) : undefined;
  const taxId = company.taxId ?? req.taxId ?? '';
  const registerNumber = req.registerNumber || (tl && tt ? `${taxId}$${tl}_${tt}` : '');
  if (!registerNumber) throw bad('registerNumber', 'the register number (or TL and TT) is required');
  const now = ctx.clock.now();
  const existing = await ctx.store.getRegister(registerNumber);
  if (existing && existing.companyId !== company.id) throw new PortalError('CONFLICT', {}, [{ field: 'registerNumber', key: 'format', params: { format: 'a register number not used by another company' } }]);
  if (existing && (existing.state === 'Discharged' || existing.state === 'Deactivated')) {
    throw new PortalError('INVALID_STATE', { detail: `register ${registerNumber} is ${existing.state}` });
  }
  await checkRegisterHandle(ctx, req.registerHandle, registerNumber);
  const register = await ctx.store.putRegister({
    registerNumber,
    companyId: company.id,
    countryCode: req.countryCode ?? existing?.countryCode ?? company.countryCode,
    lastTL: tl ?? existing?.lastTL ?? null,
    lastTT: tt ?? existing?.lastTT ?? null,
    userComment: existing?.userComment ?? null,
    firstTransaction: existing?.firstTransaction ?? null,
    lastTransaction: existing?.lastTransaction ?? null,
    versionNumber: req.versionNumber ?? existing?.versionNumber ?? null,
    // Test stays Test: a test company's registers are test registers
    state: company.state === 'Test' || company.test ? 'Test' : 'Productive',
    isCloudEFR: req.isCloudEFR ?? existing?.isCloudEFR ?? false,
    dischargeAfter: existing?.dischargeAfter ?? null,
  }, now);
  if (req.registerHandle) await ctx.store.putRegisterHandle({ handle: req.registerHandle, registerNumber, createdAt: now.toISOString() });
  const token = randomBytes(32).toString('base64url');
  await ctx.store.putInstanceCredential({ tokenHash: tokenHash(token), registerNumber, companyId: company.id, badge: req.badge.trim(), createdAt: now.toISOString() });
  await heardFrom(ctx, registerNumber);
  const cmp = cfgPartOf(company);
  put(cmp, 'TaxId', company.taxId);
  const cfg: Record<string, Record<string, string>> = { Cmp: cmp };
  if (location) {
    const loc: Record<string, string> = {};
    put(loc, 'TL', location.locationIdentification);
    Object.assign(loc, cfgPartOf(location));
    cfg.Loc = loc;
  }
  if (tt) cfg.Trm = { TT: tt };
  ctx.log?.info({ type: 'RECORDER_ACTIVATE', registerNumber, companyId: company.id }, 'register service instance activated');
  return { token, registerNumber, companyId: company.id, state: register.state, tl, tt, cfg };
}

export interface IncomingRecord {
  sq: number;
  data: string;
  hash: string;
  d?: string;
  /** digital receipts: the transaction handle of a receipt (5 characters A-Z, 2-7) */
  th?: string;
  /** digital receipts: the receipt's journal signature, base64 */
  sig?: string;
}

function chainHash(prevHex: string, data: string): string {
  return createHash('sha256').update(prevHex).update('\n').update(data).digest('hex');
}

/** Unix seconds of a record's D (`2026-11-23T10:00:00`, with or without an offset; without one read as UTC). */
export function unixOf(d: string | null | undefined): number | null {
  if (!d) return null;
  const withZone = /(?:Z|[+-]\d\d:?\d\d)$/.test(d) ? d : `${d}Z`;
  const ms = Date.parse(withZone);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

function esrOf(data: string): { tl?: string; tt?: string } {
  try {
    const parsed = JSON.parse(data) as { ESR?: { TL?: unknown; TT?: unknown } };
    const esr = parsed.ESR;
    return { ...(typeof esr?.TL === 'string' ? { tl: esr.TL } : {}), ...(typeof esr?.TT === 'string' ? { tt: esr.TT } : {}) };
  } catch {
    return {};
  }
}

/**
 * A receipt's transaction handle is made from its signature (else from its hash, src/register/render/qr/
 * document-handle.ts): one that does not match what came with it is refused, as a broken hash is.
 */
function checkTransactionHandle(r: IncomingRecord, i: number): void {
  if (r.th === undefined) return;
  const sig = r.sig !== undefined ? Buffer.from(r.sig, 'base64') : Buffer.alloc(0);
  if (transactionHandle({ sig, hash: Buffer.from(r.hash, 'hex') }) !== r.th) {
    throw bad(`records.${i}.th`, `the transaction handle of SQ ${r.sq} made from its signature`);
  }
}

/** Authenticates an instance by its credential; 401 when unknown. */
export async function instanceOf(ctx: PortalContext, authorization: string | undefined): Promise<InstanceCredential> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  const credential = m?.[1] ? await ctx.store.instanceCredential(tokenHash(m[1])) : undefined;
  if (!credential) throw new PortalError('UNAUTHORIZED', { detail: 'no valid instance credential (activate with the badge first)' });
  // any call of the instance counts as contact (REGISTER_SILENT)
  await heardFrom(ctx, credential.registerNumber);
  return credential;
}

/** Stores a batch of records; answers the highest SQ the portal holds from the batch on. */
export async function archive(ctx: PortalContext, registerNumber: string, records: readonly IncomingRecord[]): Promise<{ confirmedSq: number; stored: number; repeated: number }> {
  if (records.length === 0) throw bad('records', 'at least one record');
  const first = records[0] as IncomingRecord;
  for (let i = 1; i < records.length; i++) {
    if ((records[i] as IncomingRecord).sq !== first.sq + i) throw bad(`records.${i}.sq`, `SQ ${first.sq + i} in order without gaps`);
  }
  const last = records[records.length - 1] as IncomingRecord;
  const stored = new Map((await ctx.store.archivedRecords(registerNumber, first.sq - 1, last.sq)).map((r) => [r.sq, r]));
  // the chain is checked from the first record the portal holds (SQ 1 builds on GENESIS)
  let prev: string | undefined = first.sq === 1 ? GENESIS : stored.get(first.sq - 1)?.hash;
  if (prev === undefined && !stored.has(first.sq) && (await ctx.store.lastArchivedSq(registerNumber)) !== undefined) {
    // a batch that joins nothing the portal holds: only the register's first batch may start the archive there
    // (a journal cleaned before activation); a batch sent again from that start holds its first record already
    ctx.log?.warn({ type: 'RECORDER_GAP', registerNumber, sq: first.sq }, 'a batch that does not join the archive; refused');
    throw new PortalError('CONFLICT', {}, [{ field: 'records.0.sq', key: 'format', params: { format: `a batch that joins the archive (the archive holds records of this register but not SQ ${first.sq - 1})` } }]);
  }
  const fresh: ArchivedRecord[] = [];
  let repeated = 0;
  records.forEach((r, i) => {
    if (prev !== undefined && chainHash(prev, r.data) !== r.hash.toLowerCase()) {
      throw bad(`records.${i}.hash`, `the hash of SQ ${r.sq} does not follow the chain`);
    }
    checkTransactionHandle(r, i);
    const known = stored.get(r.sq);
    if (known) {
      if (known.hash !== r.hash.toLowerCase() || known.data !== r.data) {
        ctx.log?.warn({ type: 'RECORDER_CONFLICT', registerNumber, sq: r.sq }, 'a different record was sent for a stored SQ; refused');
        throw new PortalError('CONFLICT', {}, [{ field: `records.${i}.sq`, key: 'format', params: { format: `the record stored for SQ ${r.sq} (a different record was sent)` } }]);
      }
      repeated += 1;
    } else {
      fresh.push({ registerNumber, sq: r.sq, data: r.data, hash: r.hash.toLowerCase(), d: r.d ?? null, ...(r.th !== undefined ? { th: r.th } : {}), ...(r.sig !== undefined ? { sig: r.sig } : {}) });
    }
    prev = r.hash.toLowerCase();
  });
  await ctx.store.archiveRecords(fresh);
  const register = await ctx.store.getRegister(registerNumber);
  if (register && fresh.length > 0) {
    const times = fresh.map((r) => unixOf(r.d)).filter((t): t is number => t !== null);
    let lastTL = register.lastTL;
    let lastTT = register.lastTT;
    for (const r of fresh) {
      const esr = esrOf(r.data);
      if (esr.tl) lastTL = esr.tl;
      if (esr.tt) lastTT = esr.tt;
    }
    const firstTime = times.length ? Math.min(...times) : null;
    const lastTime = times.length ? Math.max(...times) : null;
    await ctx.store.putRegister({
      ...register,
      lastTL,
      lastTT,
      firstTransaction: register.firstTransaction ?? firstTime,
      lastTransaction: lastTime === null ? register.lastTransaction : Math.max(lastTime, register.lastTransaction ?? lastTime),
    }, ctx.clock.now());
    // a live register used for the first time is recorded for invoicing (the day of its first record, UTC)
    if (register.state === 'Productive' && firstTime !== null) {
      await ctx.store.recordFirstUse(registerNumber, new Date(firstTime * 1000).toISOString().slice(0, 10));
    }
  }
  return { confirmedSq: last.sq, stored: fresh.length, repeated };
}
