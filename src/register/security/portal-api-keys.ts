/**
 * Where the API keys of POST /auth/token come from: the instance's own keys (`ak_`, made
 * by `efr apikey create`, api-keys.ts) and the company's keys made at the portal (`ck_`, shown in the
 * company properties; efr-interface.md "Cloud instance").
 *
 * A portal key is checked at the portal through the instance's activation (POST /api/v1/recorder/apiKeys/verify
 * with the instance credential). So that logins under load do not each call the portal:
 * - a positive answer is cached for `cacheMs` (EFR_PORTAL_KEY_CACHE_MS, default 60 s), by key and secret
 *   digest (a login) and by key (a refresh's revocation check); negative answers are not cached;
 * - concurrent checks of the same key and secret share one call.
 * When the portal cannot be reached (network failure, timeout, 5xx), a positive answer younger than
 * `staleMs` (EFR_PORTAL_KEY_STALE_MS, default 1 h) is still accepted; without one the OAuth error is
 * `temporarily_unavailable` (HTTP 503) so that the POS tries again. A revocation therefore takes effect
 * within `cacheMs` while the portal is reachable.
 */
import type { Clock } from '../../shared/clock.js';
import { sha256 } from './api-keys.js';
import type { ClientKey, KeySource } from './key-source.js';
import { OAuthError } from './tokens.js';

export const PORTAL_KEY_FORM = /^ck_[A-Za-z0-9_-]{16}$/;
export const DEFAULT_PORTAL_KEY_CACHE_MS = 60_000;
export const DEFAULT_PORTAL_KEY_STALE_MS = 3_600_000;
/** the portal's answer is awaited this long before the key counts as unreachable */
const CALL_TIMEOUT_MS = 5_000;
/** at most this many cached answers (the oldest go first) */
const MAX_ENTRIES = 10_000;
/** how long a refusal is remembered (at most the positive cache time) */
const NEGATIVE_MS = 10_000;

/** The portal address and instance credential (the recorder's activation); undefined before the activation. */
export interface PortalLink {
  portalUrl: string;
  token: string;
  proxy?: string;
}

/** One call of the portal; a network failure or timeout rejects. */
export type PortalCall = (url: string, body: unknown, options: { token: string; proxy?: string; timeoutMs: number }) => Promise<{ status: number; body: Record<string, unknown> }>;

export interface PortalKeyOptions {
  cacheMs: number;
  staleMs: number;
}

interface Positive {
  taxId: string;
  /** ms (clock) of the portal's answer */
  at: number;
}

type Outcome = { kind: 'valid'; taxId: string } | { kind: 'invalid'; reason: string } | { kind: 'unreachable'; reason: string };

/** The company's keys, checked at the portal. */
export class PortalKeySource implements KeySource {
  /** `v:<key>:<secret digest>` (logins) and `a:<key>` (refreshes) */
  private readonly positive = new Map<string, Positive>();
  /** refusals of the portal, by the same ids, to the time they were answered */
  private readonly negative = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<Outcome>>();

  constructor(
    private readonly link: () => Promise<PortalLink | undefined>,
    private readonly call: PortalCall,
    private readonly clock: Clock,
    private readonly options: PortalKeyOptions,
  ) {}

  async verify(key: string, secret: string): Promise<ClientKey | undefined> {
    if (!PORTAL_KEY_FORM.test(key)) return undefined;
    const id = `v:${key}:${sha256(secret).toString('hex')}`;
    const taxId = await this.checked(id, key, { apiKey: key, apiSecret: secret });
    return taxId === undefined ? undefined : { key, taxId };
  }

  async active(key: string): Promise<boolean> {
    if (!PORTAL_KEY_FORM.test(key)) return false;
    return (await this.checked(`a:${key}`, key, { apiKey: key })) !== undefined;
  }

  /** The key's TaxId when the portal (or a cached answer) says it is valid; undefined when it is not. */
  private async checked(id: string, key: string, body: { apiKey: string; apiSecret?: string }): Promise<string | undefined> {
    const now = this.clock.now().getTime();
    const cached = this.positive.get(id);
    if (cached && now - cached.at < this.options.cacheMs) return cached.taxId;
    // a key (and secret) the portal refused a moment ago is refused again without asking: random keys sent to an
    // instance do not each cost a portal call
    const refused = this.negative.get(id);
    if (refused !== undefined && now - refused < Math.min(this.options.cacheMs, NEGATIVE_MS)) return undefined;
    let pending = this.inFlight.get(id);
    if (!pending) {
      pending = this.ask(body).finally(() => this.inFlight.delete(id));
      this.inFlight.set(id, pending);
    }
    const outcome = await pending;
    if (outcome.kind === 'valid') {
      const at = this.clock.now().getTime();
      this.remember(id, { taxId: outcome.taxId, at });
      // a valid login also answers the revocation check of the key's refreshes
      if (id.startsWith('v:')) this.remember(`a:${key}`, { taxId: outcome.taxId, at });
      return outcome.taxId;
    }
    if (outcome.kind === 'invalid') {
      this.positive.delete(id);
      this.positive.delete(`a:${key}`);
      this.negative.delete(id);
      this.negative.set(id, this.clock.now().getTime());
      while (this.negative.size > MAX_ENTRIES) {
        const oldest = this.negative.keys().next().value;
        if (oldest === undefined) break;
        this.negative.delete(oldest);
      }
      return undefined;
    }
    // the portal is away: a positive answer not too old still counts
    const last = this.positive.get(id);
    if (last && this.clock.now().getTime() - last.at < this.options.staleMs) return last.taxId;
    throw new OAuthError('temporarily_unavailable', `the portal cannot check the API key now (${outcome.reason}); try again later`);
  }

  private remember(id: string, p: Positive): void {
    this.positive.delete(id);
    this.positive.set(id, p);
    while (this.positive.size > MAX_ENTRIES) {
      const oldest = this.positive.keys().next().value;
      if (oldest === undefined) break;
      this.positive.delete(oldest);
    }
  }

  private async ask(body: { apiKey: string; apiSecret?: string }): Promise<Outcome> {
    const link = await this.link();
    if (!link) throw new OAuthError('invalid_client', 'this instance is not connected to the portal (activate it with the badge first), so it cannot check portal API keys');
    let answer: { status: number; body: Record<string, unknown> };
    try {
      answer = await this.call(`${link.portalUrl}/api/v1/recorder/apiKeys/verify`, body, { token: link.token, timeoutMs: CALL_TIMEOUT_MS, ...(link.proxy ? { proxy: link.proxy } : {}) });
    } catch (e) {
      return { kind: 'unreachable', reason: e instanceof Error ? e.message : String(e) };
    }
    if (answer.status >= 500 || answer.status === 429) return { kind: 'unreachable', reason: `HTTP ${answer.status}` };
    if (answer.status === 401 || answer.status === 403) {
      throw new OAuthError('invalid_client', 'the portal does not accept this instance\'s credential (activate it again), so it cannot check portal API keys');
    }
    const b = answer.body;
    if (answer.status !== 200 || b.success === false) return { kind: 'invalid', reason: `HTTP ${answer.status}` };
    if (b.valid !== true) return { kind: 'invalid', reason: b.revoked === true ? 'revoked' : 'unknown' };
    if (typeof b.taxId !== 'string' || !b.taxId) throw new OAuthError('invalid_client', 'the company of this API key has no TaxId at the portal');
    return { kind: 'valid', taxId: b.taxId };
  }
}

/** The key source of TokenService: `ck_` keys from the portal (when there is one), all others local. */
export class ClientKeys implements KeySource {
  constructor(
    private readonly local: KeySource,
    private readonly portal: KeySource | undefined,
  ) {}

  private sourceOf(key: string): KeySource {
    if (key.startsWith('ck_')) {
      if (!this.portal) throw new OAuthError('invalid_client', 'this instance is not connected to the portal, so it cannot check portal API keys');
      return this.portal;
    }
    return this.local;
  }

  verify(key: string, secret: string): Promise<ClientKey | undefined> {
    return this.sourceOf(key).verify(key, secret);
  }

  active(key: string): Promise<boolean> {
    return this.sourceOf(key).active(key);
  }
}
