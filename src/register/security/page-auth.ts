/**
 * Browser pages: protected by the system password (the profile password, HTTP Basic,
 * only the password is checked) or by HTTP Digest with the users of the htdigest file, realm `EFR` or, per
 * register, `EFR.<RN>`. A register whose realm has users of its own admits only them; a register without
 * specific users admits the users of realm `EFR`. When neither a password nor a Digest user applies,
 * the page is not protected (the spec: pages "can be" protected).
 */
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../shared/clock.js';
import { DigestNonces, digestResponse, equalHex, md5, parseDigestHeader } from './digest.js';
import type { HtdigestFile } from './htdigest.js';
import type { ServiceContext } from '../context.js';
import { passwordHashes } from './local-or-password.js';

export interface PageCredentials {
  /** the register has a profile password (its own or the instance's) */
  password: boolean;
  /** the Digest realm whose users are admitted, when the htdigest file names any */
  digestRealm?: string;
}

export type DigestOutcome = 'ok' | 'stale' | 'fail' | 'absent';

// compared when the user is unknown, so an unknown user costs the same time as a wrong password
const UNKNOWN_USER_HA1 = md5(`unknown:EFR:${Math.random()}`);

export class PageAuth {
  readonly nonces: DigestNonces;

  constructor(
    private readonly ctx: ServiceContext,
    readonly htdigest: HtdigestFile,
    clock: Clock,
  ) {
    this.nonces = new DigestNonces(clock);
  }

  credentials(rn: string): PageCredentials {
    const out: PageCredentials = { password: passwordHashes(this.ctx, rn).length > 0 };
    const realm = this.htdigest.realmFor(rn);
    if (realm) out.digestRealm = realm;
    return out;
  }

  /** The Basic realm of a register's pages: `EFR` for the instance, `EFR.<RN>` for one register. */
  basicRealm(rn: string): string {
    return rn === 'def' ? 'EFR' : `EFR.${rn}`;
  }

  /** Checks `Authorization: Digest ...` against the users of `realm`. */
  digest(req: FastifyRequest, realm: string): DigestOutcome {
    const p = parseDigestHeader(req.headers.authorization);
    if (!p) return 'absent';
    const username = p.get('username');
    const nonce = p.get('nonce');
    const uri = p.get('uri');
    const response = p.get('response');
    const nc = p.get('nc');
    const cnonce = p.get('cnonce');
    const qop = p.get('qop');
    const algorithm = p.get('algorithm') ?? 'MD5';
    if (!username || !nonce || uri === undefined || !response || !nc || !cnonce) return 'fail';
    if (p.get('realm') !== realm || qop !== 'auth' || !/^[0-9a-f]{8}$/i.test(nc) || !/^[0-9a-f]{32}$/i.test(response)) return 'fail';
    if (!['MD5', 'MD5-SESS'].includes(algorithm.toUpperCase())) return 'fail';
    // the credentials are for this request-target, not one seen elsewhere
    if (uri !== req.url) return 'fail';
    const user = this.htdigest.user(realm, username);
    const expected = digestResponse({ ha1: user?.ha1 ?? UNKNOWN_USER_HA1, algorithm, method: req.method, uri, nonce, nc, cnonce, qop });
    const right = equalHex(expected, response);
    if (!right || !user) {
      this.nonces.burn(nonce, realm);
      return 'fail';
    }
    const state = this.nonces.use(nonce, realm, nc);
    return state === 'replay' ? 'fail' : state;
  }

  /** The `WWW-Authenticate` values that ask for the register's page credentials, and the realm they name. */
  challenges(rn: string, stale: boolean): { challenges: string[]; realm: string } {
    const creds = this.credentials(rn);
    const challenges: string[] = [];
    if (creds.digestRealm) challenges.push(this.nonces.challenge(creds.digestRealm, stale));
    if (creds.password) challenges.push(`Basic realm="${this.basicRealm(rn).replace(/["\\]/g, '')}", charset="UTF-8"`);
    return { challenges, realm: creds.digestRealm ?? this.basicRealm(rn) };
  }
}
