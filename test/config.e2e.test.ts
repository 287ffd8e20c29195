/** /cfg, /profile, /state and the result-code settings over real HTTP. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type TestService, get, post, sale, startTestService } from './helpers.js';
import { unpackRecordText } from '../src/register/journal/record-text.js';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(async () => {
  await svc.stop();
});

const cfg = {
  Cfg: {
    Cmp: { Nam: 'Café Müller GmbH', label: 'Müller', Adr: 'Hauptstraße', AdrNr: '1', Zip: '1010', City: 'Wien', Ctry: 'AT', TaxId: 'ATU12345678' },
    Loc: { TL: '1', Nam: 'Filiale 1', label: 'F1', Adr: 'Ring', Zip: '1010', City: 'Wien', Ctry: 'AT' },
    Trm: { TT: '1', SW: 'POS', HW: 'PC', Serial: 'S-1', Lang: 'en' },
    Dev: [{ Id: 'h1', HW: 'handheld' }, { Id: 'h2', HW: 'handheld' }],
    Doc: { ContactName: 'Eva', PaymentPeriod: '14' },
  },
};

function cfgRecords(): number {
  const db = new Database(join(svc.dataDir, 'journal', 'journal.sqlite'), { readonly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM journal WHERE type = 'Cfg'").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('/cfg', () => {
  test('POST stores and journals the configuration; GET returns it in JSON and XML', async () => {
    const r = await post(`${svc.url}/cfg`, cfg);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.CfgC.Result.RC, 'OK');
    assert.equal(typeof r.json.CfgC.SQ, 'number');
    assert.equal(cfgRecords(), 1);
    // the result record: SQ, Result, ESR (when it was recorded) and Fis, the journal's signature of the record
    assert.match(r.json.CfgC.ESR.D, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    const { Payload, Signature } = r.json.CfgC.Fis;
    assert.match(Payload, new RegExp(`^EFR1;def;${r.json.CfgC.SQ};Cfg;`));
    const publicKey = readFileSync(join(svc.dataDir, 'keys', 'instance.pub.pem'), 'utf8');
    assert.ok(verify('sha256', Buffer.from(Payload), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(Signature, 'base64')), 'signed by the instance key');
    const xmlAnswer = await post(`${svc.url}/cfg`, cfg, { accept: 'application/xml' });
    assert.match(xmlAnswer.text, new RegExp(`<CfgC SQ="${r.json.CfgC.SQ}"><Result RC="OK"><Warning>[^<]*identical[^<]*</Warning></Result><ESR D="${r.json.CfgC.ESR.D}"/><Fis><Payload>${Payload}</Payload><Signature>${Signature.replace(/[+/]/g, '\\$&')}</Signature></Fis></CfgC>`));
    const back = await get(`${svc.url}/cfg`);
    assert.deepEqual(back.json, cfg);
    const xml = await get(`${svc.url}/cfg`, { accept: 'text/xml' });
    assert.match(xml.text, /<Cfg><Cmp Nam="Café Müller GmbH"/);
    assert.match(xml.text, /<Dev Id="h1" HW="handheld"\/><Dev Id="h2" HW="handheld"\/>/);
    const last = await get(`${svc.url}/last?_=Cfg`);
    assert.equal(last.json.CfgC.SQ, r.json.CfgC.SQ);
  });

  test('identical values have no effect', async () => {
    const before = cfgRecords();
    const r = await post(`${svc.url}/cfg`, cfg);
    assert.equal(r.json.CfgC.Result.RC, 'OK');
    assert.ok(r.json.CfgC.Result.Warning.some((w: string) => /identical/.test(w)));
    assert.equal(cfgRecords(), before);
  });

  test('the country selects the tax letters (AT: C is 13 %)', async () => {
    const r = await post(`${svc.url}/register`, sale({}, [['C', '11.30']]));
    assert.equal(r.status, 200, r.text);
    const db = new Database(join(svc.dataDir, 'journal', 'journal.sqlite'), { readonly: true });
    const row = db.prepare('SELECT data FROM journal WHERE sq = ?').get(r.json.TraC.SQ) as { data: Buffer };
    db.close();
    const rec = JSON.parse(unpackRecordText(row.data));
    assert.deepEqual(rec.ESR.TaxA[0], { _: 'Tax', TaxG: 'C', Prc: '13.00', Net: '10.00', TAmt: '1.30', Amt: '11.30' });
    const state = await get(`${svc.url}/state`);
    assert.equal(state.json.Country, 'AT');
    assert.equal(state.json.Company, 'Café Müller GmbH');
  });

  test('a label longer than 10 characters, a bad country and a bad language are refused naming the field', async () => {
    const cases: Array<[object, RegExp]> = [
      [{ Cfg: { Cmp: { ...cfg.Cfg.Cmp, label: 'ABCDEFGHIJK' } } }, /Cfg\.Cmp\.label: at most 10 characters/],
      [{ Cfg: { Loc: { ...cfg.Cfg.Loc, Ctry: 'Austria' } } }, /Cfg\.Loc\.Ctry/],
      [{ Cfg: { Trm: { ...cfg.Cfg.Trm, Lang: 'xx' } } }, /Cfg\.Trm\.Lang/],
      [{ Cfg: { Shop: {} } }, /Cfg\.Shop: unknown part/],
      [{ Tra: {} }, /Unknown root element Tra/],
    ];
    const before = cfgRecords();
    for (const [body, msg] of cases) {
      const r = await post(`${svc.url}/cfg`, body);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.CfgC.Result.RC, 'BAD');
      assert.match(r.json.CfgC.Result.UserMessage, msg);
    }
    assert.equal(cfgRecords(), before);
  });
});

describe('/profile and /state', () => {
  test('POST /profile stores Badge, TaxId, RN_TT, a hashed password and attributes', async () => {
    const r = await post(`${svc.url}/profile`, { Badge: 'BADGE-1', TaxId: 'ATU12345678', RN_TT: false, Password: 'secret', Attributes: 'Normalize_D=3 Log_debug' });
    assert.equal(r.status, 200, r.text);
    const p = await get(`${svc.url}/profile`);
    assert.deepEqual(p.json.Profile, { Badge: 'BADGE-1', TaxId: 'ATU12345678', RN_TT: false, PasswordSet: true, Attributes: 'Normalize_D=3 Log_debug' });
    assert.doesNotMatch(p.text, /secret/);
    const db = new Database(join(svc.dataDir, 'journal', 'journal.sqlite'), { readonly: true });
    const stored = (db.prepare("SELECT value FROM settings WHERE key = 'profile:def'").get() as { value: string }).value;
    db.close();
    assert.doesNotMatch(stored, /secret/);
    assert.match(stored, /scrypt\$/);
    // Normalize_D=3 now applies: a D four days old is refused
    const old = new Date(Date.now() - 4 * 86_400_000);
    const p2 = (n: number): string => String(n).padStart(2, '0');
    const d = `${old.getFullYear()}-${p2(old.getMonth() + 1)}-${p2(old.getDate())}T${p2(old.getHours())}:${p2(old.getMinutes())}:${p2(old.getSeconds())}`;
    const refused = await post(`${svc.url}/register`, sale({ TT: '40', D: d }));
    assert.equal(refused.json.TraC.Result.ErrorCode, '#DATE_RANGE');
    assert.match(refused.json.TraC.Result.UserMessage, /3 days/);
    await post(`${svc.url}/profile`, { Badge: 'BADGE-1', Attributes: '' });
    const accepted = await post(`${svc.url}/register`, sale({ TT: '40', D: d }));
    assert.equal(accepted.json.TraC.Result.RC, 'OK', accepted.text);
  });

  test('POST /profile answers the profile with booleans as booleans, in JSON as GET /profile does', async () => {
    const r = await post(`${svc.url}/profile`, { Badge: 'BADGE-1', RN_TT: false });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.ProfileC.Result.RC, 'OK');
    assert.equal(r.json.ProfileC.Profile.RN_TT, false);
    assert.equal(typeof r.json.ProfileC.Profile.PasswordSet, 'boolean');
    const xml = await post(`${svc.url}/profile`, '<Profile Badge="BADGE-1"/>', { 'content-type': 'application/xml', accept: 'application/xml' });
    assert.match(xml.text, /<ProfileC><Result RC="OK"\/><Profile Badge="BADGE-1" TaxId="ATU12345678" RN_TT="false" PasswordSet="true"/);
  });

  test('the profile fields DiskQuota, HttpServer_Port, UdpServer_Port, Proxy, Sign_require, Sign_Cfg are stored, shown and in force, in JSON and XML', async () => {
    const r = await post(`${svc.url}/profile`, { Badge: 'BADGE-1', Attributes: 'Fis_Tot', DiskQuota: '500', Proxy: 'http://proxy.local:3128', Sign_require: 'true', Sign_Cfg: '1', UdpServer_Port: '5620' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.ProfileC.Profile.DiskQuota, '500');
    const shown = (await get(`${svc.url}/profile`)).json.Profile;
    assert.deepEqual(
      { DiskQuota: shown.DiskQuota, Proxy: shown.Proxy, Sign_require: shown.Sign_require, Sign_Cfg: shown.Sign_Cfg, UdpServer_Port: shown.UdpServer_Port },
      { DiskQuota: '500', Proxy: 'http://proxy.local:3128', Sign_require: 'true', Sign_Cfg: '1', UdpServer_Port: '5620' },
    );
    // the same settings as attributes: the attribute list shows them, and GET /state uses the quota
    assert.equal(shown.Attributes, 'Fis_Tot DiskQuota=500 UdpServer_Port=5620 Proxy=http://proxy.local:3128 Sign_require=true Sign_Cfg=1');
    assert.equal((await get(`${svc.url}/state`)).json.DiskQuota, 500);
    // XML, and a field left empty removes the setting
    const xml = await post(`${svc.url}/profile`, '<Profile Badge="BADGE-1" DiskQuota="600" UdpServer_Port=""/>', { 'content-type': 'application/xml' });
    assert.equal(xml.status, 200, xml.text);
    assert.equal((await get(`${svc.url}/state`)).json.DiskQuota, 600);
    assert.equal((await get(`${svc.url}/profile`)).json.Profile.UdpServer_Port, undefined);
    // checked as the attribute is
    const bad = await post(`${svc.url}/profile`, { Badge: 'BADGE-1', HttpServer_Port: '99999' });
    assert.equal(bad.status, 400);
    assert.match(bad.json.ProfileC.Result.UserMessage, /HttpServer_Port/);
    await post(`${svc.url}/profile`, { Badge: 'BADGE-1', Attributes: '' });
    assert.equal((await get(`${svc.url}/state`)).json.DiskQuota, 1024);
  });

  test('a profile without a badge, or with a bad RN_TT, is refused', async () => {
    const fresh = await post(`${svc.url}/profile?rn=other`, { TaxId: 'X' });
    assert.equal(fresh.status, 400);
    assert.match(fresh.text, /Badge is required/);
    const bad = await post(`${svc.url}/profile`, { Badge: 'B', RN_TT: 'maybe' });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /RN_TT must be true or false/);
  });

  test('GET /state has every field of the state record at the top level, typed (whole seconds of uptime), and the XML form is the State element', async () => {
    const s = await get(`${svc.url}/state`);
    assert.equal(s.status, 200);
    const st = s.json;
    for (const [k, type] of Object.entries({ pid: 'number', arch: 'string', uptime: 'number', name: 'string', version: 'string', manifest: 'string', Country: 'string', Online: 'boolean', Recorder: 'string', RN: 'string', RecSent: 'number', RecQueued: 'number', RetryQueued: 'number', TimeOffset: 'number', D: 'string', DiskUsage: 'number', DiskQuota: 'number', Company: 'string', EnvSettings: 'object' })) {
      assert.equal(typeof st[k], type, `${k} is ${type}`);
    }
    assert.equal(st.pid, process.pid);
    assert.ok(Number.isInteger(st.uptime) && st.uptime >= 0, `uptime ${st.uptime} is whole seconds`);
    assert.equal(st.State, undefined, 'not wrapped in a State object');
    assert.equal(st.Recorder, 'inactive');
    assert.match(st.D, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
    assert.ok(st.RN.split(' ').includes('def'));
    const xml = await get(`${svc.url}/state`, { accept: 'text/xml' });
    assert.match(xml.text, /<State pid="\d+"/);
    assert.match(xml.text, / uptime="\d+"/);
  });
});

describe('result codes', () => {
  test('HttpServer_respond200 answers 200 for BAD; TEST_RC=NO forces NO/406; TEST_RC=BAD forces BAD', async () => {
    await post(`${svc.url}/profile`, { Badge: 'BADGE-1', Attributes: 'HttpServer_respond200' });
    const bad = await post(`${svc.url}/register`, sale({ T: '1.00' }));
    assert.equal(bad.status, 200);
    assert.equal(bad.json.TraC.Result.RC, 'BAD');
    await post(`${svc.url}/profile`, { Badge: 'BADGE-1', Attributes: 'TEST_RC=NO' });
    const no = await post(`${svc.url}/register`, sale());
    assert.equal(no.status, 406);
    assert.equal(no.json.TraC.Result.RC, 'NO');
    assert.equal(no.json.TraC.Result.ErrorCode, '#TEST_RC');
    await post(`${svc.url}/profile`, { Badge: 'BADGE-1', Attributes: 'test_rc=BAD' });
    const forcedBad = await post(`${svc.url}/register`, sale());
    assert.equal(forcedBad.status, 400);
    assert.equal(forcedBad.json.TraC.Result.RC, 'BAD');
    await post(`${svc.url}/profile`, { Badge: 'BADGE-1', Attributes: '' });
    const ok = await post(`${svc.url}/register`, sale());
    assert.equal(ok.status, 200);
  });

  test('unknown routes answer 404 with a Result, never a stack trace', async () => {
    const r = await get(`${svc.url}/nothing-here`);
    assert.equal(r.status, 404);
    assert.equal(r.json.Result.RC, 'BAD');
    assert.doesNotMatch(r.text, /at \w+ \(/);
  });
});
