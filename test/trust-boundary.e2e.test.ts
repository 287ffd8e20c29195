/**
 * The trust boundary tried as an attacker would, each attack next to the legitimate use it must not break:
 * a register's own password against instance routes and keys (from another machine: a network namespace),
 * a register made before the instance had a password, a Digest user reaching a register by TaxId/TL/TT,
 * web pages of other sites and DNS rebinding against this machine, `HttpServer_AllowOrigin=*`, a cloud
 * tenant against the instance and other tenants, and password guessing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FormData, request } from 'undici';
import { ManualClock } from '../src/shared/clock.js';
import { type RunningService, startService } from '../src/register/server.js';
import { ApiKeys } from '../src/register/security/api-keys.js';
import { FREE_FAILURES } from '../src/register/security/login-throttle.js';
import { type HttpAnswer, answerOf, get, post, sale, tempDir, unzip } from './helpers.js';
import { basic, digestAuth, digestChallengeOf, md5 } from './http-auth.js';
import { type Namespace, type RemoteAnswer, makeNamespace } from './netns.js';

const JSON_TYPE = { 'content-type': 'application/json' };

/** The names of a zip's entries. */
async function entries(zip: Buffer): Promise<string[]> {
  const dir = tempDir('efr-zip-');
  try {
    return Object.keys(await unzip(zip, dir)).sort();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function startOn(host: string, options: { clock?: ManualClock; env?: NodeJS.ProcessEnv; cloud?: boolean } = {}): Promise<{ svc: RunningService; dataDir: string }> {
  const dataDir = tempDir('efr-trust-');
  const svc = await startService({ port: 0, host, dataDir, log: false, env: options.env ?? {}, ...(options.clock ? { clock: options.clock } : {}), ...(options.cloud ? { cloud: true } : {}) });
  return { svc, dataDir };
}

/** A service on every address, and a network namespace to call it from as another machine of the LAN. */
interface RemoteFixture {
  /** why the namespace could not be made (then the tests skip), else '' */
  skip: string;
  svc: RunningService;
  dataDir: string;
  remote(path: string, headers?: Record<string, string>, options?: { method?: string; body?: string }): Promise<RemoteAnswer>;
}

/** Makes the fixture before the suite's tests (then runs `setup` from this machine) and removes it after them. */
function remoteFixture(options: { clock?: ManualClock; env?: NodeJS.ProcessEnv }, setup: (f: RemoteFixture) => Promise<void> = async () => undefined): RemoteFixture {
  let ns: Namespace | undefined;
  const f: RemoteFixture = {
    skip: '',
    svc: undefined as unknown as RunningService,
    dataDir: '',
    remote: (path, headers, opts) => ns!.remote(f.svc.port, path, headers, opts),
  };
  before(async () => {
    const made = await makeNamespace();
    if (typeof made === 'string') {
      f.skip = made;
      return;
    }
    ns = made;
    ({ svc: f.svc, dataDir: f.dataDir } = await startOn('0.0.0.0', options));
    await setup(f);
  });
  after(async () => {
    await f.svc?.close();
    if (f.dataDir) rmSync(f.dataDir, { recursive: true, force: true });
    await ns?.close();
  });
  return f;
}

describe('from another machine: a register password is no instance password', () => {
  const clock = new ManualClock(new Date());
  const f = remoteFixture({ clock }, async ({ svc }) => {
    // set up from this machine: the instance password, register R1 with its own password and a sale
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B', Password: 'defpw' })).status, 200);
    assert.equal((await post(`${svc.url}/profile?rn=R1`, { Badge: 'B1', Password: 'r1pw' })).status, 200);
    assert.equal((await post(`${svc.url}/register?rn=R1`, sale())).json.TraC.Result.RC, 'OK');
    assert.equal((await post(`${svc.url}/register`, sale())).json.TraC.Result.RC, 'OK');
  });
  const remote = f.remote;
  /** Long enough for the service to forget this address's failed attempts (each refused password counts). */
  const forgive = (): void => clock.advance(61 * 60_000);

  test('instance routes refuse a register password and answer the instance password', async (t) => {
    if (f.skip) return t.skip(f.skip);
    const instanceRoutes: Array<[string, string]> = [
      ['GET', '/disk/dir?rn=R1&password=r1pw'],
      ['POST', `/service/config?rn=R1&password=r1pw&path=${encodeURIComponent('/tmp/efr-moved')}`],
      ['POST', '/disk/clean?rn=R1&password=r1pw'],
      ['POST', '/service/restart?rn=R1&password=r1pw'],
      ['GET', '/authorization?rn=R1&password=r1pw'],
      ['GET', '/control?rn=R1&password=r1pw'],
      ['GET', '/backup/restore?rn=R1&password=r1pw'],
      ['GET', '/backup/info?rn=R1&password=r1pw'],
      ['POST', '/lic?rn=R1&password=r1pw'],
    ];
    for (const [method, path] of instanceRoutes) {
      forgive();
      const r = await remote(path, {}, { method });
      assert.ok(r.status === 403 || r.status === 401, `${method} ${path}: ${r.status} ${r.text}`);
      assert.match(r.text, /#INSTANCE_ONLY|#UNAUTHORIZED/, `${method} ${path}`);
    }
    // the owner, with the instance password, from the same machine
    forgive();
    assert.equal((await remote('/disk/dir?password=defpw')).status, 200);
    assert.equal((await remote('/control', { authorization: basic('', 'defpw') })).status, 200);
    const auth = await remote('/authorization?password=defpw');
    assert.equal(auth.status, 200, auth.text);
  });

  test('the register password reaches its own data only', async (t) => {
    if (f.skip) return t.skip(f.skip);
    forgive();
    const own = await remote('/retrieve?rn=R1&last=0&password=r1pw');
    assert.equal(own.status, 200, own.text);
    assert.match(own.text, /Tra/);
    assert.equal((await remote('/retrieve?last=0&password=r1pw')).status, 403, 'not the instance register def');
    assert.equal((await remote('/retrieve?rn=R2&last=0&password=r1pw')).status, 403, 'not another register');
    assert.equal((await remote('/profile?rn=R1&password=r1pw')).status, 200);
    assert.equal((await remote('/profile?password=r1pw')).status, 403);
    forgive();
    // making a new register over the network needs the instance credentials
    const made = await remote('/profile?rn=R9&password=r1pw', JSON_TYPE, { method: 'POST', body: JSON.stringify({ Badge: 'B9', Password: 'mine' }) });
    assert.equal(made.status, 403, made.text);
    // the template preview runs code like saving a layout: not without the password
    const preview = await remote('/peri/pugedit/preview?type=ejs', { 'content-type': 'text/plain' }, { method: 'POST', body: '<%= 1 %>' });
    assert.equal(preview.status, 403, preview.text);
  });

  test('a backup made with a register password carries no private key of the instance; the instance password\'s does', async (t) => {
    if (f.skip) return t.skip(f.skip);
    forgive();
    const byRegister = await remote('/backup?rn=R1&password=r1pw');
    assert.equal(byRegister.status, 200, byRegister.text);
    const regFiles = await entries(byRegister.body);
    assert.ok(regFiles.includes('files/keys/instance.pub.pem'), regFiles.join(' '));
    assert.ok(!regFiles.some((f) => f.endsWith('.key.pem') || f.includes('private')), regFiles.join(' '));
    const byInstance = await remote('/backup?rn=R1&password=defpw');
    assert.equal(byInstance.status, 200);
    assert.ok((await entries(byInstance.body)).includes('files/keys/instance.key.pem'));

    // restored into a fresh instance: the instance password's backup continues there; the register
    // password's is refused, naming why, and changes nothing
    const fresh = await startOn('127.0.0.1');
    try {
      const refused = answerOf(await request(`${fresh.svc.url}/backup/restore`, { method: 'POST', body: byRegister.body, headers: { 'content-type': 'application/zip' } }));
      const r = await refused;
      assert.ok(r.status >= 400, r.text);
      assert.match(r.text, /holds no private key/);
      const restored = await answerOf(await request(`${fresh.svc.url}/backup/restore`, { method: 'POST', body: byInstance.body, headers: { 'content-type': 'application/zip' } }));
      assert.equal(restored.status, 200, restored.text);
      const next = await post(`${fresh.svc.url}/register?rn=R1`, sale());
      assert.equal(next.json.TraC.Result.RC, 'OK', next.text);
      assert.equal(Number(next.json.TraC.SQ), restored.json.Restore.lastSQ + 1, 'the chain continues after the restored records');
    } finally {
      await fresh.svc.close();
      rmSync(fresh.dataDir, { recursive: true, force: true });
    }
  });

  test('failed passwords are throttled per address: 429 with Retry-After, the right one too, until the wait is over', async (t) => {
    if (f.skip) return t.skip(f.skip);
    forgive();
    for (let i = 0; i < FREE_FAILURES; i++) assert.equal((await remote(`/retrieve?last=0&password=guess${i}`)).status, 403);
    const blocked = await remote('/retrieve?last=0&password=guess-next');
    assert.equal(blocked.status, 429, blocked.text);
    assert.match(blocked.headers, /retry-after: 1/i);
    assert.match(blocked.text, /#TOO_MANY_ATTEMPTS/);
    assert.equal((await remote('/retrieve?last=0&password=defpw')).status, 429, 'the right password waits as well');
    // open routes and this machine are not held up
    assert.equal((await remote('/state')).status, 200);
    assert.equal((await get(`${f.svc.url}/retrieve?last=0`)).status, 200);
    clock.advance(1100);
    assert.equal((await remote('/retrieve?last=0&password=defpw')).status, 200);
    // the success cleared the count: a new mistake is free again
    assert.equal((await remote('/retrieve?last=0&password=wrong')).status, 403);
  });
});

describe('from another machine: Digest users and a register made before the instance had a password', () => {
  const f = remoteFixture({ env: { SVC_EFR_PROFILE_CFG__DOT__def__DOT__RN_TT: 'true', SVC_EFR_PROFILE_CFG__DOT__def__DOT__TaxId: 'ATU33333333' } }, async ({ svc, dataDir }) => {
    mkdirSync(join(dataDir, 'cer'), { recursive: true });
    writeFileSync(join(dataDir, 'cer', 'htdigest'), [`alice:EFR:${md5('alice:EFR:alice-pw')}`, `bob:EFR.ATU33333333$1_1:${md5('bob:EFR.ATU33333333$1_1:bob-pw')}`, ''].join('\n'));
    assert.equal((await post(`${svc.url}/register`, sale())).json.TraC.Result.RC, 'OK');
  });
  const remote = f.remote;

  /** A Digest answer for `uri` with a fresh nonce of `realm` (asked from a route guarded by it). */
  async function digestFor(realmRoute: string, user: string, password: string, realm: string, uri: string): Promise<string> {
    const challenge = await remote(realmRoute);
    const lines = challenge.headers.split('\r\n').filter((l) => /^www-authenticate:/i.test(l)).map((l) => l.replace(/^www-authenticate:\s*/i, ''));
    const c = digestChallengeOf(lines);
    assert.equal(c.realm, realm);
    return digestAuth({ user, password, realm, nonce: c.nonce as string, method: 'GET', uri, nc: 1 });
  }

  test('a user of realm EFR does not reach a register with its own realm by TaxId/TL/TT; its own user does', async (t) => {
    if (f.skip) return t.skip(f.skip);
    const uri = '/retrieve?taxid=ATU33333333&tl=1&tt=1&last=0';
    const alice = await digestFor('/ui/journal', 'alice', 'alice-pw', 'EFR', uri);
    const byAlice = await remote(uri, { authorization: alice });
    assert.equal(byAlice.status, 403, byAlice.text);
    const bob = await digestFor(`/ui/journal?rn=${encodeURIComponent('ATU33333333$1_1')}`, 'bob', 'bob-pw', 'EFR.ATU33333333$1_1', uri);
    const byBob = await remote(uri, { authorization: bob });
    assert.equal(byBob.status, 200, byBob.text);
    assert.match(byBob.text, /Tra/);
  });

  test('a wrong Digest answer uses its nonce up: the right answer with the same nonce is stale', async (t) => {
    if (f.skip) return t.skip(f.skip);
    const uri = '/ui/journal';
    const challenge = await remote(uri);
    const lines = challenge.headers.split('\r\n').filter((l) => /^www-authenticate:/i.test(l)).map((l) => l.replace(/^www-authenticate:\s*/i, ''));
    const nonce = digestChallengeOf(lines).nonce as string;
    const wrong = await remote(uri, { authorization: digestAuth({ user: 'alice', password: 'guess', realm: 'EFR', nonce, method: 'GET', uri, nc: 1 }) });
    assert.equal(wrong.status, 401);
    const right = await remote(uri, { authorization: digestAuth({ user: 'alice', password: 'alice-pw', realm: 'EFR', nonce, method: 'GET', uri, nc: 2 }) });
    assert.equal(right.status, 401, 'the nonce was used up by the wrong answer');
    assert.match(right.headers, /stale=true/);
  });
});

describe('a register made from the LAN before the instance had a password', () => {
  const f = remoteFixture({});
  const remote = f.remote;

  test('keeps its own password, but it never opens the instance\'s keys or another register', async (t) => {
    if (f.skip) return t.skip(f.skip);
    // an unprotected instance may be set up from the LAN (documented): a POS makes its register
    const evil = await remote('/profile?rn=evil', JSON_TYPE, { method: 'POST', body: JSON.stringify({ Badge: 'E', Password: 'evilpw' }) });
    assert.equal(evil.status, 200, evil.text);
    assert.equal((await remote('/register?rn=evil', JSON_TYPE, { method: 'POST', body: JSON.stringify(sale()) })).status, 200);
    // the owner protects the instance
    assert.equal((await post(`${f.svc.url}/profile`, { Badge: 'B', Password: 'owner-pw' })).status, 200);
    const backup = await remote('/backup?rn=evil&password=evilpw');
    assert.equal(backup.status, 200, 'its own journal');
    const files = await entries(backup.body);
    assert.ok(!files.includes('files/keys/instance.key.pem'), files.join(' '));
    assert.equal((await remote('/backup?password=evilpw')).status, 403);
    assert.equal((await remote('/disk/dir?rn=evil&password=evilpw')).status, 403);
    const another = await remote('/profile?rn=evil2&password=evilpw', JSON_TYPE, { method: 'POST', body: JSON.stringify({ Badge: 'E2', Password: 'x' }) });
    assert.equal(another.status, 403, 'no new register without the instance password now');
    const byOwner = await remote('/profile?rn=new&password=owner-pw', JSON_TYPE, { method: 'POST', body: JSON.stringify({ Badge: 'N', Password: 'new-pw' }) });
    assert.equal(byOwner.status, 200, byOwner.text);
  });
});

describe('browsers on this machine: other sites and DNS rebinding', () => {
  let svc: RunningService;
  let dataDir = '';
  const upload = async (headers: Record<string, string>, method: 'POST' | 'PUT' = 'POST'): Promise<HttpAnswer> => {
    const form = new FormData();
    form.append('file', new Blob(['p= "attacker\'s receipt"'], { type: 'text/plain' }), 'fiscal.pug');
    return answerOf(await request(`${svc.url}/peri/layout`, { method, body: form, headers }));
  };

  before(async () => {
    ({ svc, dataDir } = await startOn('127.0.0.1'));
    assert.equal((await post(`${svc.url}/register`, sale())).json.TraC.Result.RC, 'OK');
    assert.equal((await post(`${svc.url}/profile`, { Badge: 'B', Password: 'owner-pw' })).status, 200);
  });

  after(async () => {
    await svc?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('another site\'s page cannot upload a layout or change the profile; this machine\'s tools and the own pages can', async () => {
    const forged = await upload({ origin: 'http://evil.example' });
    assert.equal(forged.status, 403, forged.text);
    assert.equal(forged.json.Result.ErrorCode, '#CROSS_SITE');
    assert.equal((await get(`${svc.url}/peri/layout`)).json.Layouts?.length ?? 0, 0, 'nothing uploaded');
    const bySite = await upload({ 'sec-fetch-site': 'cross-site' });
    assert.equal(bySite.status, 403, 'a browser that sends no Origin but Sec-Fetch-Site');
    const profile = await post(`${svc.url}/profile`, '{"Attributes":"HttpServer_AllowOrigin=*"}', { 'content-type': 'text/plain', origin: 'http://evil.example' });
    assert.equal(profile.status, 403, profile.text);
    assert.doesNotMatch((await get(`${svc.url}/profile`)).text, /AllowOrigin/, 'the profile is unchanged');
    // the same from a tool on this machine, and from the service's own page (same origin)
    assert.equal((await upload({})).status, 201);
    const own = await upload({ origin: svc.url, 'sec-fetch-site': 'same-origin' }, 'PUT');
    assert.ok(own.status === 201 || own.status === 200, own.text);
    // a link from another site opens a page in the user's own tab (reading only)
    const nav = await get(`${svc.url}/disk`, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' });
    assert.equal(nav.status, 200);
  });

  test('a rebound host name gets nothing; the machine\'s names and addresses do', async () => {
    const rebound = await get(`${svc.url}/backup`, { host: 'rebind.attacker.example' });
    assert.equal(rebound.status, 421, rebound.text);
    assert.equal(rebound.json.Result.ErrorCode, '#HOST_NOT_ALLOWED');
    assert.equal((await post(`${svc.url}/register`, sale(), { host: `rebind.attacker.example:${svc.port}` })).status, 421);
    // the same through a reverse proxy, which forwards the name the browser used
    assert.equal((await get(`${svc.url}/state`, { 'x-forwarded-host': 'rebind.attacker.example' })).status, 421);
    assert.equal((await get(`${svc.url}/backup`, { host: `localhost:${svc.port}` })).status, 200);
    assert.equal((await get(`${svc.url}/backup`, { host: `127.0.0.1:${svc.port}` })).status, 200);
    // a name the operator adds
    assert.equal((await post(`${svc.url}/profile`, { Attributes: 'HttpServer_Hosts=kasse.shop.lan' })).status, 200);
    assert.equal((await get(`${svc.url}/state`, { host: `kasse.shop.lan:${svc.port}` })).status, 200);
    assert.equal((await get(`${svc.url}/state`, { host: `rebind.attacker.example:${svc.port}` })).status, 421);
  });

  test('HttpServer_AllowOrigin=* lets any page use the open POS API, never what this machine gets without a password', async () => {
    assert.equal((await post(`${svc.url}/profile`, { Attributes: 'HttpServer_AllowOrigin=*' })).status, 200);
    const pos = await post(`${svc.url}/register`, sale(), { origin: 'https://webpos.example' });
    assert.equal(pos.status, 200, pos.text);
    assert.equal((await get(`${svc.url}/state`, { origin: 'https://any.example' })).status, 200);
    for (const path of ['/retrieve?last=0', '/backup', '/profile', '/export?type=jou']) {
      const r = await get(`${svc.url}${path}`, { origin: 'https://any.example' });
      assert.equal(r.status, 403, `${path}: ${r.text}`);
      assert.equal(r.json.Result.ErrorCode, '#CROSS_SITE');
    }
    // an origin listed by name, with the password in the request, may read the journal
    assert.equal((await post(`${svc.url}/profile`, { Attributes: 'HttpServer_AllowOrigin=https://admin.example HttpServer_AllowCredentials' })).status, 200);
    assert.equal((await get(`${svc.url}/retrieve?last=0`, { origin: 'https://admin.example' })).status, 403, 'no credentials of its own');
    const withPw = await get(`${svc.url}/retrieve?last=0`, { origin: 'https://admin.example', authorization: basic('', 'owner-pw') });
    assert.equal(withPw.status, 200, withPw.text);
    assert.equal((await get(`${svc.url}/retrieve?last=0`, { origin: 'https://admin.example', authorization: basic('', 'wrong') })).status, 403);
  });
});

describe('cloud mode: a tenant reaches its own registers only', () => {
  const clock = new ManualClock(new Date());
  let svc: RunningService;
  let dataDir = '';
  const tokens: Record<'a' | 'b', string> = { a: '', b: '' };
  const call = async (method: 'GET' | 'POST', path: string, token: string, body?: string): Promise<HttpAnswer> =>
    answerOf(await request(`${svc.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body ? JSON_TYPE : {}) }, ...(body ? { body } : {}) }));

  before(async () => {
    ({ svc, dataDir } = await startOn('127.0.0.1', {
      clock,
      cloud: true,
      env: {
        SVC_EFR_PROFILE_CFG__DOT__def__DOT__RN_TT: 'true',
        SVC_EFR_PROFILE_CFG__DOT__def__DOT__Password: 'operator-pw',
        SVC_EFR_PROFILE_CFG__DOT__def__DOT__Device_Auth: 'instance-secret',
      },
    }));
    for (const [who, taxId] of [['a', 'ATU11111111'], ['b', 'ATU22222222']] as const) {
      const key = await new ApiKeys(svc.ctx.store).create(taxId, who, clock.now());
      const r = await answerOf(
        await request(`${svc.url}/auth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(key.record.key, key.secret) },
          body: new URLSearchParams({ grant_type: 'client_credentials', TaxId: taxId, TL: '1', TT: '1' }).toString(),
        }),
      );
      assert.equal(r.status, 200, r.text);
      tokens[who] = r.json.access_token;
      const s = await call('POST', '/register', tokens[who], JSON.stringify(sale()));
      assert.equal(s.json.TraC.Result.RC, 'OK', s.text);
    }
  });

  after(async () => {
    await svc?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('the instance profile, other tenants\' registers and the instance logs are refused; the own register works', async () => {
    const b = tokens.b;
    const setProfile = await call('POST', '/profile', b, JSON.stringify({ Badge: 'X', RN_TT: false }));
    assert.equal(setProfile.status, 403, setProfile.text);
    const readProfile = await call('GET', '/profile?rn=def', b);
    assert.equal(readProfile.status, 403, readProfile.text);
    assert.doesNotMatch(readProfile.text, /instance-secret/);
    const foreign = await call('GET', `/find?rn=${encodeURIComponent('ATU11111111$1_1')}`, b);
    assert.equal(foreign.status, 403, foreign.text);
    const cfg = await call('POST', '/cfg', b, JSON.stringify({ Cfg: { Cmp: { TaxId: 'ATU11111111' }, Loc: { TL: '1' }, Trm: { TT: '1' } } }));
    assert.equal(cfg.status, 403, cfg.text);
    assert.equal(cfg.json.CfgC?.Result?.ErrorCode ?? cfg.json.Result?.ErrorCode, '#OUT_OF_SCOPE');
    const state = await call('GET', '/state', b);
    assert.equal(state.status, 200);
    const stateText = JSON.stringify(state.json);
    assert.doesNotMatch(stateText, /ATU11111111/, 'another tenant\'s register is not listed');
    assert.match(stateText, /ATU22222222\$1_1/);
    for (const path of ['/log', '/backup/log', '/backup?log', '/control', '/ui/journal']) {
      const r = await call('GET', path, b);
      assert.ok(r.status === 403 || r.status === 401, `${path}: ${r.status}`);
    }
    // the own register, and the operator with the instance password
    assert.equal((await call('GET', '/find', b)).status, 200);
    assert.equal((await call('GET', '/log?password=operator-pw', b)).status, 200);
    // the operator, without a tenant's token, with the instance password
    const opProfile = await answerOf(await request(`${svc.url}/profile?rn=def`, { headers: { authorization: basic('', 'operator-pw') } }));
    assert.equal(opProfile.status, 200, opProfile.text);
    const opWrong = await answerOf(await request(`${svc.url}/state?password=guess`));
    assert.equal(opWrong.status, 401, 'the password must be the instance\'s, on open routes too');
    assert.equal(opWrong.json.error, 'invalid_token');
  });
});
