/**
 * API keys of cloud POS: a public key id bound to one TaxId and a random secret shown
 * once. Only the SHA-256 of the secret is kept, in the journal store's settings (so any store works);
 * checks compare digests in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { JournalStore } from '../journal/types.js';

export type SettingsStore = Pick<JournalStore, 'getSetting' | 'putSetting'>;

/** One API key as stored: never the secret, only its digest. */
export interface ApiKeyRecord {
  v: 1;
  key: string;
  taxId: string;
  name?: string;
  /** ISO time of creation */
  created: string;
  /** `sha256:<hex>` of the secret */
  secret: string;
  /** ISO time of revocation */
  revoked?: string;
}

export interface NewApiKey {
  record: ApiKeyRecord;
  /** shown once, never stored */
  secret: string;
}

const INDEX = 'cloud.apikeys';
const PREFIX = 'cloud.apikey:';
/** a key id: `ak_` and 16 base64url characters (96 random bits) */
const KEY_FORM = /^ak_[A-Za-z0-9_-]{16}$/;

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Compares two texts by their SHA-256 digests: constant time whatever their lengths. */
export function sameSecret(given: string, storedDigestHex: string): boolean {
  const stored = Buffer.from(storedDigestHex, 'hex');
  const digest = sha256(given);
  // a malformed stored digest still costs one comparison
  return timingSafeEqual(digest, stored.length === digest.length ? stored : Buffer.alloc(digest.length)) && stored.length === digest.length;
}

function digestText(secret: string): string {
  return `sha256:${sha256(secret).toString('hex')}`;
}

/** A digest that matches no secret, compared against when the key is unknown (same time either way). */
const NO_DIGEST = 'ff'.repeat(32);

export class ApiKeys {
  constructor(private readonly store: SettingsStore) {}

  async create(taxId: string, name: string | undefined, now: Date): Promise<NewApiKey> {
    if (!taxId.trim()) throw new Error('a TaxId is required');
    if (/[\s$]/.test(taxId) || taxId.length > 64) throw new Error(`invalid TaxId "${taxId}" (no spaces or $, at most 64 characters)`);
    const key = `ak_${randomBytes(12).toString('base64url')}`;
    const secret = randomBytes(32).toString('base64url');
    const record: ApiKeyRecord = { v: 1, key, taxId, ...(name ? { name } : {}), created: now.toISOString(), secret: digestText(secret) };
    await this.store.putSetting(PREFIX + key, JSON.stringify(record));
    const keys = await this.keys();
    keys.push(key);
    await this.store.putSetting(INDEX, JSON.stringify(keys));
    return { record, secret };
  }

  async get(key: string): Promise<ApiKeyRecord | undefined> {
    if (!KEY_FORM.test(key)) return undefined;
    const text = await this.store.getSetting(PREFIX + key);
    if (!text) return undefined;
    try {
      return JSON.parse(text) as ApiKeyRecord;
    } catch {
      return undefined;
    }
  }

  async list(): Promise<ApiKeyRecord[]> {
    const out: ApiKeyRecord[] = [];
    for (const key of await this.keys()) {
      const r = await this.get(key);
      if (r) out.push(r);
    }
    return out;
  }

  /** Marks a key revoked (kept for the record); false when unknown. */
  async revoke(key: string, now: Date): Promise<boolean> {
    const r = await this.get(key);
    if (!r) return false;
    if (!r.revoked) {
      r.revoked = now.toISOString();
      await this.store.putSetting(PREFIX + key, JSON.stringify(r));
    }
    return true;
  }

  /** The key's record when the secret is right and the key active; undefined otherwise. */
  async verify(key: string, secret: string): Promise<ApiKeyRecord | undefined> {
    const r = await this.get(key);
    const stored = r?.secret.startsWith('sha256:') ? r.secret.slice(7) : NO_DIGEST;
    const ok = sameSecret(secret, stored);
    if (!r || !ok || r.revoked) return undefined;
    return r;
  }

  private async keys(): Promise<string[]> {
    const text = await this.store.getSetting(INDEX);
    if (!text) return [];
    try {
      const parsed: unknown = JSON.parse(text);
      return Array.isArray(parsed) ? parsed.filter((k): k is string => typeof k === 'string') : [];
    } catch {
      return [];
    }
  }
}
