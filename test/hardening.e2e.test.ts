/**
 * Hostile and odd input over real HTTP: every refusal is RC BAD with a message naming the problem,
 * in the request's format; nothing reaches the journal; the chain stays verifiable.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type TestService, get, post, sale, startTestService } from './helpers.js';
import { verifyJournal } from './verify-journal.js';
import { unpackRecordText } from '../src/register/journal/record-text.js';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(async () => {
  await svc.stop();
});

function count(sql: string): number {
  const db = new Database(join(svc.dataDir, 'journal', 'journal.sqlite'), { readonly: true });
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('refused input leaves no trace', () => {
  const bad: Array<[string, string, string, RegExp]> = [
    ['__proto__ key', '{"Tra":{"ESR":{"__proto__":{"TN":"99"},"PosA":[{"_":"Pos","Dsc":"a","TaxG":"A","Amt":"1.00"}],"PayA":[{"_":"Pay","Dsc":"c","Amt":"1.00"}]}}}', 'application/json', /property name "__proto__"/],
    ['constructor as tax group', JSON.stringify(sale({}, [['constructor', '1.00']])), 'application/json', /TaxG "constructor"/],
    ['JSON nested 5000 deep', `{"Tra":{"ESR":{"X":${'['.repeat(5000)}${']'.repeat(5000)}}}}`, 'application/json', /nested deeper than 32/],
    ['XML nested 7000 deep', `<Tra><ESR>${'<X>'.repeat(7000)}${'</X>'.repeat(7000)}</ESR></Tra>`, 'text/xml', /nested deeper than 32/],
    ['control character', JSON.stringify(sale({ TN: '7\u0001' })), 'application/json', /control character/],
    ['property name that XML cannot carry', '{"Tra":{"ESR":{"a b":"x","PosA":[]}}}', 'application/json', /property name "a b"/],
    ['several tax groups without TaxA', JSON.stringify(sale({}, [['A B', '6.00']])), 'application/json', /several tax groups: send a TaxA element for each/],
    ['blank tax group', JSON.stringify(sale({}, [[' ', '1.00']])), 'application/json', /ESR\.PosA\[0\]\.TaxG is required/],
    ['empty PosA', '{"Tra":{"ESR":{"PosA":[],"PayA":[]}}}', 'application/json', /at least one position/],
    ['Amt not Qty x Pri', JSON.stringify({ Tra: { ESR: { PosA: [{ _: 'Pos', Dsc: 'a', TaxG: 'A', Qty: '2', Pri: '1.00', Amt: '5.00' }], PayA: [{ _: 'Pay', Dsc: 'c', Amt: '5.00' }] } } }), 'application/json', /ESR\.PosA\[0\]\.Amt: 5\.00 is not Qty 2 x Pri 1\.00 = 2\.00/],
    ['too many lines', JSON.stringify(sale({ PosA: Array.from({ length: 5001 }, () => ({ _: 'Pos', Dsc: 'a', TaxG: 'A', Amt: '0.01' })) })), 'application/json', /at most 5000 lines/],
    ['unknown charset', JSON.stringify(sale()), 'application/json; charset=x-nothing', /unknown character set/],
  ];
  for (const [name, body, ct, message] of bad) {
    test(name, async () => {
      const before = count('SELECT count(*) AS n FROM journal');
      const r = await post(`${svc.url}/register`, body, { 'content-type': ct });
      assert.equal(r.status, 400, `${name}: ${r.text.slice(0, 300)}`);
      if (ct.includes('xml')) {
        assert.match(r.text, /<TraC><Result RC="BAD">/);
        assert.match(r.text, message);
      } else {
        assert.equal(r.json.TraC.Result.RC, 'BAD');
        assert.match(r.json.TraC.Result.UserMessage, message);
      }
      assert.equal(count('SELECT count(*) AS n FROM journal'), before);
    });
  }

  test('a refused first request does not create its register', async () => {
    const r = await post(`${svc.url}/register?rn=never`, sale({ T: 'x' }));
    assert.equal(r.status, 400);
    assert.equal(count("SELECT count(*) AS n FROM registers WHERE rn = 'never'"), 0);
    const state = await get(`${svc.url}/state`);
    assert.ok(!state.json.RN.split(' ').includes('never'));
    const ok = await post(`${svc.url}/register?rn=created`, sale());
    assert.equal(ok.json.TraC.Result.RC, 'OK', ok.text);
    assert.equal(count("SELECT count(*) AS n FROM registers WHERE rn = 'created'"), 1);
  });

  test('the journal still verifies after all of this', async () => {
    await post(`${svc.url}/register`, sale());
    const report = await verifyJournal(svc.dataDir);
    assert.ok(report.ok, JSON.stringify(report));
  });
});

describe('formats and encodings', () => {
  test('a malformed XML request gets its refusal in XML', async () => {
    for (const body of ['<Tra><ESR></Tra>', '<!DOCTYPE Tra><Tra/>']) {
      const r = await post(`${svc.url}/register`, body, { 'content-type': 'text/xml' });
      assert.equal(r.status, 400);
      assert.match(r.contentType, /xml/);
      assert.match(r.text, /^<\?xml[^>]*>\n<TraC><Result RC="BAD"><ErrorCode>#(MALFORMED|XML_FORBIDDEN)<\/ErrorCode>/);
    }
  });

  test('ISO-8859-1 bodies are decoded by their charset; a UTF-8 byte order mark is accepted', async () => {
    const xml = '<Tra><ESR TT="70" T="1.00"><PosA><Pos Dsc="Käse" TaxG="A" Amt="1.00"/></PosA><PayA><Pay Dsc="Bar" Amt="1.00"/></PayA></ESR></Tra>';
    const { request } = await import('undici');
    const latin1 = await request(`${svc.url}/register`, { method: 'POST', body: Buffer.from(xml, 'latin1'), headers: { 'content-type': 'text/xml; charset=iso-8859-1' } });
    const text = await latin1.body.text();
    assert.equal(latin1.statusCode, 200, text);
    const last = await get(`${svc.url}/last`);
    const sq = last.json.TraC.SQ;
    const db = new Database(join(svc.dataDir, 'journal', 'journal.sqlite'), { readonly: true });
    const row = db.prepare('SELECT data FROM journal WHERE sq = ?').get(sq) as { data: Buffer };
    db.close();
    const rec = JSON.parse(unpackRecordText(row.data));
    assert.equal(rec.ESR.PosA[0].Dsc, 'Käse');
    const bom = await request(`${svc.url}/register`, { method: 'POST', body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(sale({ TT: '71' })))]), headers: { 'content-type': 'application/json' } });
    assert.equal(bom.statusCode, 200, await bom.body.text());
  });

  test('a TN with a semicolon cannot shift the fields of the signed payload', async () => {
    const r = await post(`${svc.url}/register`, sale({ TT: '72', TN: '7;999.00' }));
    assert.equal(r.json.TraC.Result.RC, 'OK', r.text);
    const fields = (r.json.TraC.Fis.Payload as string).split(';');
    assert.equal(fields.length, 10);
    assert.equal(fields[7], '1/72/7%3B999.00');
    assert.equal(fields[8], '4.70');
  });

  test('query parameter names are case-insensitive', async () => {
    await post(`${svc.url}/register?rn=casetest`, sale({ TT: '73' }));
    const a = await get(`${svc.url}/last?RN=casetest`);
    const b = await get(`${svc.url}/last?rN=casetest`);
    const def = await get(`${svc.url}/last`);
    assert.equal(a.status, 200, a.text);
    assert.deepEqual(a.json, b.json);
    assert.notDeepEqual(a.json, def.json);
  });
});

describe('German start and finish', () => {
  test('TraS uses no TN: the closing Tra carries its own TN, gapless', async () => {
    const first = await post(`${svc.url}/register`, sale({ TL: '001', TT: '80' }));
    const s = await post(`${svc.url}/register`, { TraS: { ESR: { TL: '001', TT: '80' } } });
    assert.equal(s.json.TraSC.Result.RC, 'OK', s.text);
    const closing = await post(`${svc.url}/register`, sale({ TL: '001', TT: '80', TID: String(s.json.TraSC.Fis.TID) }));
    assert.equal(Number(closing.json.TraC.ESR.TN), Number(first.json.TraC.ESR.TN) + 1);
    const s2 = await post(`${svc.url}/register`, { TraS: { ESR: { TL: '001', TT: '80', TN: '500' } } });
    const c2 = await post(`${svc.url}/register`, sale({ TL: '001', TT: '80', TN: '500', TID: String(s2.json.TraSC.Fis.TID) }));
    assert.equal(c2.json.TraC.Result.RC, 'OK', c2.text);
    assert.equal(c2.json.TraC.Fis.TID, s2.json.TraSC.Fis.TID);
  });
});

describe('Multi POS register numbers', () => {
  test('TL or TT with _ or $ is refused, so TaxId$TL_TT stays unambiguous', async () => {
    const other = await startTestService();
    try {
      await post(`${other.url}/profile`, { Badge: 'B', TaxId: 'ATU1', RN_TT: true });
      const r = await post(`${other.url}/register`, sale({ TL: 'a_b', TT: 'c' }));
      assert.equal(r.status, 400);
      assert.match(r.json.TraC.Result.UserMessage, /ESR\.TL: "a_b" may not contain \$ or _/);
    } finally {
      await other.stop();
    }
  });
});

describe('large receipts', () => {
  test('2500 positions and 2500 Mods on all of them register with the right total', async () => {
    const n = 2500;
    const posA = [
      ...Array.from({ length: n }, (_, i) => ({ _: 'Pos', PN: String(i + 1), Dsc: 'a', TaxG: 'A', Amt: '1.00' })),
      ...Array.from({ length: n }, () => ({ _: 'Mod', PN: '*', Amt: '-0.10' })),
    ];
    // 2500 x 1.00 - 2500 x 0.10 = 2250.00
    const body = { Tra: { ESR: { TT: '90', PosA: posA, PayA: [{ _: 'Pay', Dsc: 'c', Amt: '2250.00' }] } } };
    const r = await post(`${svc.url}/register`, body);
    assert.equal(r.json.TraC.Result.RC, 'OK', r.text.slice(0, 300));
  });
});
