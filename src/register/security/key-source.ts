/**
 * Where TokenService gets the API keys a POS logs in with: a small abstraction over the
 * instance's own keys (`ak_`, api-keys.ts) and the company's keys at the portal (`ck_`, portal-api-keys.ts).
 */
import type { ApiKeyRecord, ApiKeys } from './api-keys.js';

/** A key that may log in: its id and the TaxId its tokens are bound to. */
export interface ClientKey {
  key: string;
  taxId: string;
}

/** The keys TokenService logs in with. Refusals and outages are thrown as OAuthError. */
export interface KeySource {
  /** The key when the secret is right and the key active, else undefined. */
  verify(key: string, secret: string): Promise<ClientKey | undefined>;
  /** Whether the key is still active (a refresh). */
  active(key: string): Promise<boolean>;
}

/** The instance's own keys (`ak_`, made by `efr apikey create`): exactly as before. */
export class LocalKeySource implements KeySource {
  constructor(private readonly keys: ApiKeys) {}

  async verify(key: string, secret: string): Promise<ClientKey | undefined> {
    const r: ApiKeyRecord | undefined = await this.keys.verify(key, secret);
    return r && { key: r.key, taxId: r.taxId };
  }

  async active(key: string): Promise<boolean> {
    const r = await this.keys.get(key);
    return r !== undefined && !r.revoked;
  }
}
