/** The client side of HTTP Basic and Digest (RFC 2617, qop=auth, MD5), as a browser computes it. */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';

export const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
export const md5 = (s: string): string => createHash('md5').update(s).digest('hex');

/** The parameters of the Digest challenge among `WWW-Authenticate` lines. */
export function digestChallengeOf(lines: readonly string[]): Record<string, string> {
  const line = lines.find((l) => l.startsWith('Digest '));
  assert.ok(line, `a Digest challenge in ${JSON.stringify(lines)}`);
  const out: Record<string, string> = {};
  for (const m of line.slice(7).matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]+))/g)) out[m[1] as string] = m[2] ?? m[3] ?? '';
  return out;
}

/** The `Authorization` value of a Digest answer to `nonce` for `method uri`. */
export function digestAuth(o: { user: string; password: string; realm: string; nonce: string; opaque?: string; method: string; uri: string; nc: number; cnonce?: string }): string {
  const nc = o.nc.toString(16).padStart(8, '0');
  const cnonce = o.cnonce ?? randomBytes(8).toString('hex');
  const ha1 = md5(`${o.user}:${o.realm}:${o.password}`);
  const ha2 = md5(`${o.method}:${o.uri}`);
  const response = md5(`${ha1}:${o.nonce}:${nc}:${cnonce}:auth:${ha2}`);
  return `Digest username="${o.user}", realm="${o.realm}", nonce="${o.nonce}", uri="${o.uri}", algorithm=MD5, qop=auth, nc=${nc}, cnonce="${cnonce}", response="${response}"${o.opaque ? `, opaque="${o.opaque}"` : ''}`;
}
