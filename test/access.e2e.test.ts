/**
 * Who may call what over real HTTP: the local-or-password rule from another
 * machine (a veth pair into a network namespace made here with `ip netns`), browser pages behind the system
 * password (Basic) and HTTP Digest from a real htdigest file (the client side of RFC 2617 computed here),
 * environment settings, CORS and request size limits.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { ManualClock } from '../src/shared/clock.js';
import { type RunningService, startService } from '../src/register/server.js';
import { ROUTES, unlistedRoutes } from '../src/register/security/route-access.js';
import { ROOT, type TestService, post, sale, startTestService, tempDir } from './helpers.js';
import { basic, digestAuth, digestChallengeOf, md5 } from './http-auth.js';
import { type Namespace, type RemoteAnswer, makeNamespace } from './netns.js';


interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request with node:http: an early answer (413 before the body is sent) is still read. */
function call(url: string, options: { method?: string; headers?: Record<string, string>; body?: Buffer | string; chunked?: boolean } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers ?? {}, timeout: 20_000 }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      // headersDistinct: several WWW-Authenticate lines stay several
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: { ...res.headers, 'www-authenticate': res.headersDistinct['www-authenticate'] }, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url}`)));
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (!answered) reject(e);
    });
    const body = options.body;
    if (body === undefined) req.end();
    else if (options.chunked) {
      // no content-length: the limit is found while reading
      const buf = Buffer.from(body);
      const piece = 64 * 1024;
      let i = 0;
      const next = (): void => {
        if (i >= buf.length) {
          req.end();
          return;
        }
        const part = buf.subarray(i, i + piece);
        i += piece;
        if (req.write(part)) setImmediate(next);
        else req.once('drain', next);
      };
      next();
    } else req.end(body);
  });
}

/** The parameters of the Digest challenge among the WWW-Authenticate lines. */
function digestChallenge(a: Answer): Record<string, string> {
  return digestChallengeOf(([] as string[]).concat(a.headers['www-authenticate'] ?? []));
}

function json(a: Answer): any {
  return JSON.parse(a.text);
}

describe('from another machine (veth pair into a network namespace)', () => {
  let ns: Namespace | undefined;
  let svc: RunningService | undefined;
  let dataDir = '';
  let skip = '';

  before(async () => {
    const made = await makeNamespace();
    if (typeof made === 'string') {
      skip = made;
      return;
    }
    ns = made;
    dataDir = tempDir('efr-access-');
    svc = await startService({ port: 0, host: '0.0.0.0', dataDir, log: false, env: {} });
    assert.equal((await post(`${svc.url}/register`, sale())).json.TraC.Result.RC, 'OK');
    // no password yet: the profile can be set from anywhere; here from this machine
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B', Password: 'Sh0p-pass' })).status, 200);
    mkdirSync(join(dataDir, 'cer'), { recursive: true });
    writeFileSync(join(dataDir, 'cer', 'htdigest'), `alice:EFR:${md5('alice:EFR:alice-pw')}\n`);
  });

  after(async () => {
    await svc?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await ns?.close();
  });

  const remote = (path: string, headers: Record<string, string> = {}, options: { method?: string; body?: string } = {}): Promise<RemoteAnswer> => ns!.remote(svc!.port, path, headers, options);

  test('/retrieve: 403 without the password, 200 with it (query or Basic) or a Digest user; open routes answer', async (t) => {
    if (skip) return t.skip(skip);
    const refused = await remote('/retrieve?last=0');
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.text, /#FORBIDDEN/);
    assert.match(refused.text, /GET \/retrieve is allowed only from this machine or with the profile password/);
    assert.equal((await remote('/retrieve?last=0&password=wrong')).status, 403);
    assert.equal((await remote('/retrieve?last=0', { authorization: basic('x', 'wrong') })).status, 403);
    const withQuery = await remote('/retrieve?last=0&password=Sh0p-pass');
    assert.equal(withQuery.status, 200, withQuery.text);
    assert.match(withQuery.text, /Tra/);
    assert.equal((await remote('/retrieve?last=0', { authorization: basic('anyone', 'Sh0p-pass') })).status, 200);
    // a Digest user of the instance realm opens it too (a browser that logged in to a page sends it)
    const challenge = digestChallenge(await call(`${svc!.url}/peri/pugedit`));
    const uri = '/retrieve?last=0';
    const digest = digestAuth({ user: 'alice', password: 'alice-pw', realm: 'EFR', nonce: challenge.nonce as string, method: 'GET', uri, nc: 1 });
    const byDigest = await remote(uri, { authorization: digest });
    assert.equal(byDigest.status, 200, byDigest.text);
    assert.equal((await remote(uri, { authorization: digest })).status, 403, 'the same nonce-count again is a replay');
    // open routes: the POS API needs no password
    assert.equal((await remote('/state')).status, 200);
    assert.equal((await remote('/jou/reprintcnt?tl=1&tt=1&tn=1')).status !== 403, true);
    assert.equal((await remote('/last')).status, 200);
    // POST /profile needs the password now that one is set
    assert.equal((await remote('/profile')).status, 403);
    assert.equal((await remote('/profile?password=Sh0p-pass')).status, 200);
    // POST /cer/ssl: the query password is the certificate's, so the profile password counts only by Basic
    const byQuery = await remote('/cer/ssl?password=Sh0p-pass', { 'content-type': 'application/octet-stream' }, { method: 'POST', body: 'not a pfx' });
    assert.equal(byQuery.status, 403, byQuery.text);
    const byBasic = await remote('/cer/ssl?password=cert-pw', { authorization: basic('x', 'Sh0p-pass'), 'content-type': 'application/octet-stream' }, { method: 'POST', body: 'not a pfx' });
    assert.equal(byBasic.status, 400, byBasic.text);
    assert.match(byBasic.text, /#CERTIFICATE/);
  });

  test('the same from 127.0.0.1 needs no password; through a proxy (X-Forwarded-For) it does', async (t) => {
    if (skip) return t.skip(skip);
    assert.equal((await call(`${svc!.url}/retrieve?last=0`)).status, 200);
    assert.equal((await call(`http://[::1]:${svc!.port}/retrieve?last=0`).catch(() => ({ status: 200 }))).status, 200);
    const proxied = await call(`${svc!.url}/retrieve?last=0`, { headers: { 'x-forwarded-for': '127.0.0.1' } });
    assert.equal(proxied.status, 403, 'a proxy on this machine does not make its clients local');
    assert.equal((await call(`${svc!.url}/retrieve?last=0&password=Sh0p-pass`, { headers: { 'x-forwarded-for': '10.0.0.9' } })).status, 200);
  });
});

describe('browser pages with the system password (HTTP Basic)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc.stop();
  });

  test('no password configured: the page is open', async () => {
    const r = await call(`${svc.url}/peri/pugedit`);
    assert.equal(r.status, 200);
    assert.match(r.text, /<html/i);
  });

  test('with a password: 401 with a Basic challenge; a wrong password fails, the right one with any user name passes', async () => {
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B', Password: 'p4ge-pw' })).status, 200);
    const asked = await call(`${svc.url}/peri/pugedit`);
    assert.equal(asked.status, 401);
    assert.match(String(asked.headers['www-authenticate']), /^Basic realm="EFR"/);
    assert.match(asked.text, /#UNAUTHORIZED/);
    assert.match(asked.text, /GET \/peri\/pugedit needs the system password/);
    assert.equal((await call(`${svc.url}/peri/pugedit`, { headers: { authorization: basic('admin', 'wrong') } })).status, 401);
    assert.equal((await call(`${svc.url}/peri/pugedit`, { headers: { authorization: basic('', 'p4ge-pw') } })).status, 200);
    assert.equal((await call(`${svc.url}/peri/pugedit`, { headers: { authorization: basic('whoever', 'p4ge-pw') } })).status, 200);
    assert.equal((await call(`${svc.url}/peri/pugedit/editor.js`, { headers: { authorization: basic('whoever', 'p4ge-pw') } })).status, 200);
    // a register's own password opens its pages; the instance password opens them too
    assert.equal((await post(`${svc.url}/profile?rn=R9&password=p4ge-pw`, { Badge: 'B9', Password: 'r9-pw' })).status, 200);
    const r9 = await call(`${svc.url}/peri/pugedit?rn=R9`);
    assert.equal(r9.status, 401);
    assert.match(String(r9.headers['www-authenticate']), /^Basic realm="EFR\.R9"/);
    assert.equal((await call(`${svc.url}/peri/pugedit?rn=R9`, { headers: { authorization: basic('', 'r9-pw') } })).status, 200);
    assert.equal((await call(`${svc.url}/peri/pugedit?rn=R9`, { headers: { authorization: basic('', 'p4ge-pw') } })).status, 200);
    assert.equal((await call(`${svc.url}/peri/pugedit`, { headers: { authorization: basic('', 'r9-pw') } })).status, 401, 'a register password does not open the instance');
  });
});

describe('browser pages with HTTP Digest (htdigest file)', () => {
  const clock = new ManualClock(new Date());
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ clock });
    mkdirSync(join(svc.dataDir, 'cer'), { recursive: true });
    writeFileSync(
      join(svc.dataDir, 'cer', 'htdigest'),
      [`alice:EFR:${md5('alice:EFR:alice-pw')}`, `bob:EFR.R2:${md5('bob:EFR.R2:bob-pw')}`, '# a comment', 'broken line', ''].join('\n'),
    );
  });
  after(async () => {
    await svc.stop();
  });

  async function login(path: string, user: string, password: string, realmOverride?: string): Promise<{ status: number; challenge: Record<string, string>; again: (nc: number) => Promise<number> }> {
    const first = await call(`${svc.url}${path}`);
    assert.equal(first.status, 401);
    const c = digestChallenge(first);
    const realm = realmOverride ?? (c.realm as string);
    const cnonce = randomBytes(6).toString('hex');
    const with_ = (nc: number): Promise<Answer> =>
      call(`${svc.url}${path}`, { headers: { authorization: digestAuth({ user, password, realm, nonce: c.nonce as string, opaque: c.opaque, method: 'GET', uri: path, nc, cnonce }) } });
    const r = await with_(1);
    return { status: r.status, challenge: c, again: async (nc) => (await with_(nc)).status };
  }

  test('a correct Digest response passes; the same nonce-count again is refused, the next one passes', async () => {
    const first = await call(`${svc.url}/peri/pugedit`);
    assert.equal(first.status, 401);
    const lines = ([] as string[]).concat(first.headers['www-authenticate'] ?? []);
    assert.equal(lines.length, 1, 'no password: only Digest is offered');
    const c = digestChallenge(first);
    assert.equal(c.realm, 'EFR');
    assert.equal(c.qop, 'auth');
    assert.equal(c.algorithm, 'MD5');
    const ok = await login('/peri/pugedit', 'alice', 'alice-pw');
    assert.equal(ok.status, 200);
    assert.equal(await ok.again(1), 401, 'replayed nonce-count');
    assert.equal(await ok.again(2), 200);
  });

  test('a wrong password, an unknown user, another URI and a foreign realm fail', async () => {
    assert.equal((await login('/peri/pugedit', 'alice', 'wrong')).status, 401);
    assert.equal((await login('/peri/pugedit', 'mallory', 'alice-pw')).status, 401);
    assert.equal((await login('/peri/pugedit', 'bob', 'bob-pw', 'EFR.R2')).status, 401, 'a user of EFR.R2 does not open the instance pages');
    const first = await call(`${svc.url}/peri/pugedit`);
    const c = digestChallenge(first);
    const other = await call(`${svc.url}/peri/pugedit`, { headers: { authorization: digestAuth({ user: 'alice', password: 'alice-pw', realm: 'EFR', nonce: c.nonce as string, method: 'GET', uri: '/peri/pugedit/editor.js', nc: 1 }) } });
    assert.equal(other.status, 401, 'credentials for another URI');
    const forged = await call(`${svc.url}/peri/pugedit`, { headers: { authorization: digestAuth({ user: 'alice', password: 'alice-pw', realm: 'EFR', nonce: 'A'.repeat(48), method: 'GET', uri: '/peri/pugedit', nc: 1 }) } });
    assert.equal(forged.status, 401);
    assert.match(String(forged.headers['www-authenticate']), /stale=true/, 'right password, nonce not ours: stale, the browser retries');
  });

  test('realm EFR.<RN>: a register with users of its own admits only them; one without admits the EFR users', async () => {
    const r2 = await login('/peri/pugedit?rn=R2', 'bob', 'bob-pw');
    assert.equal(r2.challenge.realm, 'EFR.R2');
    assert.equal(r2.status, 200);
    assert.equal((await login('/peri/pugedit?rn=R2', 'alice', 'alice-pw', 'EFR')).status, 401, 'an EFR user on a register with its own users');
    const r3 = await login('/peri/pugedit?rn=R3', 'alice', 'alice-pw');
    assert.equal(r3.challenge.realm, 'EFR');
    assert.equal(r3.status, 200);
    assert.equal((await login('/peri/pugedit?rn=R3', 'bob', 'bob-pw', 'EFR.R2')).status, 401);
  });

  test('an old nonce is stale: 401 with stale=true, a new nonce passes', async () => {
    const first = await call(`${svc.url}/peri/pugedit`);
    const c = digestChallenge(first);
    clock.advance(6 * 60_000);
    const old = await call(`${svc.url}/peri/pugedit`, { headers: { authorization: digestAuth({ user: 'alice', password: 'alice-pw', realm: 'EFR', nonce: c.nonce as string, method: 'GET', uri: '/peri/pugedit', nc: 1 }) } });
    assert.equal(old.status, 401);
    assert.match(String(old.headers['www-authenticate']), /stale=true/);
    const fresh = digestChallenge(old);
    const ok = await call(`${svc.url}/peri/pugedit`, { headers: { authorization: digestAuth({ user: 'alice', password: 'alice-pw', realm: 'EFR', nonce: fresh.nonce as string, method: 'GET', uri: '/peri/pugedit', nc: 1 }) } });
    assert.equal(ok.status, 200);
  });

  test('with a password as well both challenges are offered, and either passes; a new htdigest user counts at once', async () => {
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B', Password: 'sys-pw' })).status, 200);
    const both = await call(`${svc.url}/peri/pugedit`);
    const lines = ([] as string[]).concat(both.headers['www-authenticate'] ?? []);
    assert.equal(lines.length, 2);
    assert.ok(lines.some((l) => l.startsWith('Basic realm="EFR"')));
    assert.equal((await call(`${svc.url}/peri/pugedit`, { headers: { authorization: basic('', 'sys-pw') } })).status, 200);
    assert.equal((await login('/peri/pugedit', 'alice', 'alice-pw')).status, 200);
    const file = join(svc.dataDir, 'cer', 'htdigest');
    writeFileSync(file, `${readFileSync(file, 'utf8')}carol:EFR:${md5('carol:EFR:carol-pw')}\n`);
    assert.equal((await login('/peri/pugedit', 'carol', 'carol-pw')).status, 200);
  });
});

describe('environment settings', () => {
  let svc: TestService;
  const P = 'SVC_EFR_PROFILE_CFG__DOT__';
  before(async () => {
    svc = await startTestService({
      env: {
        [`${P}def__DOT__HttpServer_respond200`]: 'true',
        [`${P}def__DOT__TaxId`]: 'ATU99999999',
        [`${P}def__DOT__Password`]: 'env-secret',
        [`${P}def__DOT__TSE_AdminPin`]: '123456',
        [`${P}def__DOT__Proxy`]: 'http://user:proxy-pw@proxy.local:3128',
        [`${P}def__DOT__Log_debug`]: 'True',
        [`${P}ATU1__DOLLAR__1_2__DOT__Normalize_D`]: '3',
        [`${P}def__DOT__a__DOT__b`]: 'x',
        [`${P}def`]: 'x',
        [`${P}__DOT__Fis_QR`]: 'x',
        [`${P}de-f__DOT__Fis_QR`]: 'x',
        SVC_EFR_PROFILE_CFG__DOT__def__DOT__: 'x',
        OTHER: 'x',
      },
    });
  });
  after(async () => {
    await svc.stop();
  });

  test('GET /state shows them per RN (secrets masked); malformed names and a capitalised boolean are left out', async () => {
    const s = await call(`${svc.url}/state`);
    const env = json(s).EnvSettings;
    assert.deepEqual(Object.keys(env).sort(), ['ATU1$1_2', 'def']);
    assert.deepEqual(env['ATU1$1_2'], { Normalize_D: '3' });
    assert.equal(env.def.HttpServer_respond200, 'true');
    assert.equal(env.def.TaxId, 'ATU99999999');
    assert.equal(env.def.Password, '********');
    assert.equal(env.def.TSE_AdminPin, '********');
    assert.equal(env.def.Proxy, 'http://user:********@proxy.local:3128');
    assert.equal(env.def.Log_debug, undefined, 'True is not a boolean: ignored');
    assert.doesNotMatch(s.text, /env-secret|123456|proxy-pw/);
  });

  test('they apply: respond200 answers a BAD with 200, the TaxId and the password are in force', async () => {
    const bad = await post(`${svc.url}/register`, sale({ T: '1.00' }));
    assert.equal(bad.status, 200);
    assert.equal(bad.json.TraC.Result.RC, 'BAD');
    const profile = await call(`${svc.url}/profile`);
    assert.equal(json(profile).Profile.TaxId, 'ATU99999999');
    assert.equal(json(profile).Profile.PasswordSet, true);
    assert.equal((await call(`${svc.url}/peri/pugedit`)).status, 401);
    assert.equal((await call(`${svc.url}/peri/pugedit`, { headers: { authorization: basic('', 'env-secret') } })).status, 200);
  });

  test('a change through POST /profile answers exactly "Setting of {setting_name} for {RN} is blocked"', async () => {
    const cases: Array<[string, object, string]> = [
      ['', { Badge: 'B', Attributes: 'Fis_Tot httpserver_respond200=false' }, 'Setting of HttpServer_respond200 for def is blocked'],
      ['', { Badge: 'B', TaxId: 'ATU11111111' }, 'Setting of TaxId for def is blocked'],
      ['', { Badge: 'B', Password: 'new' }, 'Setting of Password for def is blocked'],
      ['?rn=ATU1$1_2', { Badge: 'B', Attributes: 'Normalize_D=9' }, 'Setting of Normalize_D for ATU1$1_2 is blocked'],
    ];
    for (const [query, body, message] of cases) {
      const r = await post(`${svc.url}/profile${query.replace('$', '%24')}`, body);
      assert.equal(r.json.ProfileC.Result.UserMessage, message, r.text);
      assert.equal(r.json.ProfileC.Result.ErrorCode, '#BLOCKED');
    }
    // settings not preset stay changeable
    const ok = await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'Fis_Tot' });
    assert.equal(ok.json.ProfileC.Result.RC, 'OK', ok.text);
  });

  test('a preset setting sent back with its preset value is no change: the same TaxId, password, attribute value, or the Attributes GET /profile shows', async () => {
    const shown = json(await call(`${svc.url}/profile`)).Profile;
    for (const body of [
      { Badge: 'B', TaxId: 'ATU99999999' },
      { Badge: 'B', Password: 'env-secret' },
      { Badge: 'B', Attributes: 'Fis_Tot HttpServer_respond200=true' },
      { Badge: 'B', Attributes: shown.Attributes },
      { Badge: 'B', Proxy: 'http://user:proxy-pw@proxy.local:3128' },
    ]) {
      const r = await post(`${svc.url}/profile`, body);
      assert.equal(r.status, 200, `${JSON.stringify(body)}: ${r.text}`);
      assert.equal(r.json.ProfileC.Result.RC, 'OK');
    }
    const changed = await post(`${svc.url}/profile`, { Badge: 'B', Proxy: 'http://other.local:3128' });
    assert.equal(changed.json.ProfileC.Result.ErrorCode, '#BLOCKED');
    assert.equal(changed.json.ProfileC.Result.UserMessage, 'Setting of Proxy for def is blocked');
  });
});

describe('CORS from HttpServer_AllowOrigin / HttpServer_AllowCredentials', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc.stop();
  });
  const preflight = (path: string, origin: string): Promise<Answer> =>
    call(`${svc.url}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });

  test('without the attribute: no CORS headers, a preflight is an unknown route', async () => {
    const r = await call(`${svc.url}/state`, { headers: { origin: 'https://pos.example' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers['access-control-allow-origin'], undefined);
    const p = await preflight('/register', 'https://pos.example');
    assert.equal(p.status, 404);
    assert.equal(p.headers['access-control-allow-origin'], undefined);
  });

  test('a list of origins: the matching one is echoed with Vary: Origin and credentials; others get nothing', async () => {
    await post(`${svc.url}/profile`, { Badge: 'B', Attributes: 'HttpServer_AllowOrigin="https://pos.example, http://10.0.0.5:8080" HttpServer_AllowCredentials' });
    const p = await preflight('/register', 'https://pos.example');
    assert.equal(p.status, 204);
    assert.equal(p.headers['access-control-allow-origin'], 'https://pos.example');
    assert.equal(p.headers['access-control-allow-credentials'], 'true');
    assert.match(String(p.headers['access-control-allow-methods']), /POST/);
    assert.match(String(p.headers['access-control-allow-headers']), /Authorization/);
    assert.match(String(p.headers['access-control-allow-headers']), /Content-Type/);
    assert.equal(p.headers['access-control-max-age'], '600');
    assert.match(String(p.headers.vary), /Origin/);
    const simple = await call(`${svc.url}/state`, { headers: { origin: 'http://10.0.0.5:8080' } });
    assert.equal(simple.headers['access-control-allow-origin'], 'http://10.0.0.5:8080');
    assert.match(String(simple.headers.vary), /Origin/);
    const evil = await call(`${svc.url}/state`, { headers: { origin: 'https://evil.example' } });
    assert.equal(evil.status, 200);
    assert.equal(evil.headers['access-control-allow-origin'], undefined);
    const evilPre = await preflight('/register', 'https://evil.example');
    assert.equal(evilPre.status, 204);
    assert.equal(evilPre.headers['access-control-allow-origin'], undefined);
  });

  test('a preflight is answered before the credential hooks; a refusal still carries the CORS headers', async () => {
    await post(`${svc.url}/profile`, { Badge: 'B', Password: 'cors-pw', Attributes: 'HttpServer_AllowOrigin=https://pos.example' });
    const p = await preflight('/peri/pugedit', 'https://pos.example');
    assert.equal(p.status, 204, 'not 401: the preflight carries no credentials');
    // another site's page without credentials of its own: refused before any password is asked for
    const bare = await call(`${svc.url}/peri/pugedit`, { headers: { origin: 'https://pos.example' } });
    assert.equal(bare.status, 403, bare.text);
    assert.match(bare.text, /#CROSS_SITE/);
    assert.equal(bare.headers['access-control-allow-origin'], 'https://pos.example');
    const refused = await call(`${svc.url}/peri/pugedit`, { headers: { origin: 'https://pos.example', authorization: basic('', 'wrong') } });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers['access-control-allow-origin'], 'https://pos.example');
    assert.equal(refused.headers['access-control-allow-credentials'], undefined, 'no AllowCredentials attribute');
  });

  test('* with credentials: any origin, but never * together with credentials', async () => {
    await post(`${svc.url}/profile?password=cors-pw`, { Badge: 'B', Attributes: 'HttpServer_AllowOrigin=* HttpServer_AllowCredentials' });
    const r = await call(`${svc.url}/state`, { headers: { origin: 'https://anything.example' } });
    assert.equal(r.headers['access-control-allow-origin'], '*');
    assert.equal(r.headers['access-control-allow-credentials'], undefined);
    await post(`${svc.url}/profile?password=cors-pw`, { Badge: 'B', Attributes: '' });
    assert.equal((await call(`${svc.url}/state`, { headers: { origin: 'https://anything.example' } })).headers['access-control-allow-origin'], undefined, 'a profile change applies at once');
  });
});

describe('request size limits', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc.stop();
  });

  test('an oversize body answers 413 #TOO_LARGE, by Content-Length or while reading', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 0x20);
    const byLength = await call(`${svc.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(big.length) }, body: big });
    assert.equal(byLength.status, 413, byLength.text.slice(0, 200));
    assert.equal(json(byLength).TraC.Result.ErrorCode, '#TOO_LARGE');
    assert.match(json(byLength).TraC.Result.UserMessage, /larger than 2097152 bytes/);
    const chunked = await call(`${svc.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big, chunked: true });
    assert.equal(chunked.status, 413);
    const profile = await call(`${svc.url}/profile`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"Badge":"${'x'.repeat(100 * 1024)}"}` });
    assert.equal(profile.status, 413);
    assert.match(profile.text, /larger than 65536 bytes/);
    // under the limit: decoded as usual
    const under = await call(`${svc.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"Tra": ${' '.repeat(1536 * 1024)}` });
    assert.equal(under.status, 400);
    assert.match(under.text, /#MALFORMED/);
    // the service still answers
    assert.equal((await post(`${svc.url}/register`, sale())).json.TraC.Result.RC, 'OK');
  });

  test('every route the service has is in the access table, and docs/security.md lists every entry', () => {
    assert.deepEqual(unlistedRoutes(svc.app), []);
    const doc = readFileSync(join(ROOT, 'docs', 'security.md'), 'utf8');
    for (const e of ROUTES) {
      const row = new RegExp(`\\|\\s*${e.methods.join('[, ]+')}\\s*\\|\\s*\`${e.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\``);
      assert.match(doc, row, `${e.methods.join(', ')} ${e.path} in docs/security.md`);
    }
  });
});
