/**
 * `--trust-proxy` / PORTAL_TRUST_PROXY: whether the portal takes the client address of a request from
 * X-Forwarded-For (Fastify's trustProxy), so that clients behind the portal's load balancer are told apart (the
 * receipt page's guess limit counts per client). `true` trusts whatever connects (only when nothing but the proxy can
 * reach the portal); a comma-separated list of addresses or CIDR ranges (`10.0.0.5,10.1.0.0/16`) trusts only those
 * proxies; `false`, empty or absent: off (the connection's address counts; X-Forwarded-For is ignored).
 */
import { isIP } from 'node:net';
import type { PortalOptions } from './server.js';

export function parseTrustProxy(text: string | undefined): boolean | string[] | undefined {
  const t = (text ?? '').trim();
  if (t === '' || /^(false|0|no|off)$/i.test(t)) return undefined;
  if (/^(true|1|yes|on)$/i.test(t)) return true;
  const list = t.split(',').map((x) => x.trim()).filter((x) => x !== '');
  for (const entry of list) {
    const [address, bits, ...rest] = entry.split('/');
    const family = isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    const okBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || rest.length > 0 || !okBits) {
      throw new Error(`invalid trust-proxy (PORTAL_TRUST_PROXY) entry ${JSON.stringify(entry)}: true, false, or addresses / CIDR ranges separated by commas`);
    }
  }
  return list;
}

export function trustProxyOption(text: string | undefined): Pick<PortalOptions, 'trustProxy'> {
  const trustProxy = parseTrustProxy(text);
  return trustProxy === undefined ? {} : { trustProxy };
}
