/**
 * POST /register end to end over real HTTP: codec, normalization, the validation rules,
 * business cases, generic fiscal data, duplicates, result codes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { verifySignature } from '../src/register/security/signer.js';
import { type TestService, get, post, sale, startTestService } from './helpers.js';
import { unpackRecordText } from '../src/register/journal/record-text.js';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(async () => {
  await svc.stop();
});

function journalRows(where = '1=1'): Array<{ sq: number; type: string; bc: string | null; tn: string | null; fn: string | null }> {
  const db = new Database(join(svc.dataDir, 'journal', 'journal.sqlite'), { readonly: true });
  try {
    return db.prepare(`SELECT sq, type, bc, tn, fn FROM journal WHERE ${where} ORDER BY sq`).all() as Array<{ sq: number; type: string; bc: string | null; tn: string | null; fn: string | null }>;
  } finally {
    db.close();
  }
}

describe('registration in JSON and XML', () => {
  test('a JSON sale answers OK with SQ as integer, generated D, TN, FN and a verifiable signature', async () => {
    const r = await post(`${svc.url}/register`, sale());
    assert.equal(r.status, 200, r.text);
    assert.match(r.contentType, /application\/json/);
    const c = r.json.TraC;
    assert.equal(c.Result.RC, 'OK');
    assert.equal(typeof c.SQ, 'number');
    assert.match(c.ESR.D, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    assert.match(c.ESR.TN, /^\d+$/);
    assert.equal(c.ESR.FN, c.Fis.FN);
    assert.equal(c.Fis.Code, `${c.Fis.Payload};${c.Fis.Signature}`);
    const key = createPublicKey(readFileSync(join(svc.dataDir, 'keys', 'instance.pub.pem')));
    assert.ok(verifySignature(key, c.Fis.Payload, Buffer.from(c.Fis.Signature, 'base64')), 'signature verifies with the public key');
    const tampered = c.Fis.Payload.replace(';4.70;', ';4.71;');
    assert.notEqual(tampered, c.Fis.Payload);
    assert.ok(!verifySignature(key, tampered, Buffer.from(c.Fis.Signature, 'base64')), 'a changed total does not verify');
    const rows = journalRows(`sq = ${c.SQ}`);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.fn, c.ESR.FN);
  });

  test('the same receipt in XML gives an equivalent XML answer; Accept xml forces XML', async () => {
    const xml = '<Tra><ESR TL="1" TT="2" TN="500" T="4.70"><PosA><Pos PN="1" Dsc="Article 1" TaxG="A" Amt="3.50"/><Pos PN="2" Dsc="Article 2" TaxG="B" Amt="1.20"/></PosA><PayA><Pay Dsc="Cash" PayG="cash" Amt="4.70"/></PayA></ESR></Tra>';
    const x = await post(`${svc.url}/register`, xml, { 'content-type': 'text/xml' });
    assert.equal(x.status, 200, x.text);
    assert.match(x.contentType, /xml/);
    assert.match(x.text, /<TraC SQ="\d+"><Result RC="OK"\/><ESR D="[^"]+" TN="500" FN="\d+"\/><Fis /);
    const json = sale({ TT: '2', TN: '501', T: '4.70' });
    const j = await post(`${svc.url}/register`, json);
    assert.equal(j.json.TraC.Result.RC, 'OK');
    assert.equal(j.json.TraC.ESR.TN, '501');
    const forced = await post(`${svc.url}/register`, sale({ TT: '2', TN: '502' }), { accept: 'xml' });
    assert.match(forced.contentType, /xml/);
    assert.match(forced.text, /<TraC SQ="\d+"><Result RC="OK"\/>/);
    // an Accept naming JSON (sent by default by many HTTP libraries) does not change an XML answer
    const xmlStill = await post(`${svc.url}/register`, xml.replace('TN="500"', 'TN="503"'), { 'content-type': 'text/xml', accept: 'application/json, text/plain, */*' });
    assert.match(xmlStill.text, /<TraC SQ="\d+"><Result RC="OK"\/><ESR [^>]*TN="503"/);
  });

  test('amounts, EAN leading zeros and company attributes are kept exactly in the journal', async () => {
    const body = sale({ TT: '3', MyCompanyField: 'keep me', PosA: [{ _: 'Pos', Dsc: 'Apple', TaxG: 'A', Amt: '1.50', IN: '0012345678905', ArticleGroup: 'fruit' }], PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: 'PAY' }] });
    // amounts as JSON numbers, written as a POS would: 1.50 must not become 1.5
    const text = JSON.stringify(body).replace('"Amt":"1.50","IN"', '"Amt":1.50,"IN"').replace('"Amt":"PAY"', '"Amt":1.50');
    assert.match(text, /"Amt":1\.50,"IN".*"Amt":1\.50/);
    const r = await post(`${svc.url}/register`, text, { 'content-type': 'application/json' });
    assert.equal(r.status, 200, r.text);
    const last = await get(`${svc.url}/last?_=Tra`);
    assert.equal(last.json.TraC.SQ, r.json.TraC.SQ);
    const db = new Database(join(svc.dataDir, 'journal', 'journal.sqlite'), { readonly: true });
    const row = db.prepare('SELECT data FROM journal WHERE sq = ?').get(r.json.TraC.SQ) as { data: Buffer };
    db.close();
    const rec = JSON.parse(unpackRecordText(row.data));
    assert.equal(rec.ESR.PosA[0].Amt, '1.50');
    assert.equal(rec.ESR.PosA[0].IN, '0012345678905');
    assert.equal(rec.ESR.PosA[0].ArticleGroup, 'fruit');
    assert.equal(rec.ESR.MyCompanyField, 'keep me');
    assert.equal(rec.ESR.PayA[0].Amt, '1.50');
    assert.equal(rec.ESR.T, '1.50');
    assert.deepEqual(rec.ESR.TaxA, [{ _: 'Tax', TaxG: 'A', Prc: '20.00', Net: '1.25', TAmt: '0.25', Amt: '1.50' }]);
  });

  test('query parameter names are case-insensitive', async () => {
    const a = await get(`${svc.url}/last?_=Tra&RN=def`);
    const b = await get(`${svc.url}/last?_=Tra&rn=def`);
    assert.equal(a.status, 200);
    assert.deepEqual(a.json, b.json);
  });
});

describe('normalization over HTTP', () => {
  test('TN counts per TL/TT; TL is taken from TT written TL/TT; Qty and Pri are filled', async () => {
    const one = await post(`${svc.url}/register`, sale({ TL: undefined, TT: 'shop9/7' }));
    const two = await post(`${svc.url}/register`, sale({ TL: undefined, TT: 'shop9/7' }));
    assert.equal(one.json.TraC.Result.RC, 'OK', one.text);
    assert.equal(Number(two.json.TraC.ESR.TN), Number(one.json.TraC.ESR.TN) + 1);
    const db = new Database(join(svc.dataDir, 'journal', 'journal.sqlite'), { readonly: true });
    const row = db.prepare('SELECT tl, tt FROM journal WHERE sq = ?').get(one.json.TraC.SQ) as { tl: string; tt: string };
    db.close();
    assert.deepEqual(row, { tl: 'shop9', tt: '7' });
  });

  test('Mods by PN range change the per-group amounts; TaxA by percentage and by link', async () => {
    const r = await post(`${svc.url}/register`, {
      Tra: { ESR: { TT: '4', PosA: [
        { _: 'Pos', PN: '1', Dsc: 'a', TaxG: '20%', Amt: '10.00' },
        { _: 'Pos', PN: '2', Dsc: 'b', TaxG: '20%', Amt: '10.00' },
        { _: 'Mod', PN: '1-2', Dsc: '-10%', Amt: '-2.00' },
        { _: 'Pos', PN: '3', Dsc: 'c', TaxG: 'special', Amt: '5.00' },
      ], PayA: [{ _: 'Pay', Dsc: 'Card', PayG: 'creditcard', Amt: '23.00' }],
      TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '20', Amt: '18.00' }, { _: 'Tax', TaxG: 'special', Prc: '7', Net: '4.67', TAmt: '0.33', Amt: '5.00' }] } },
    });
    assert.equal(r.json.TraC.Result.RC, 'OK', r.text);
    const bad = await post(`${svc.url}/register`, {
      Tra: { ESR: { TT: '4', PosA: [
        { _: 'Pos', PN: '1', Dsc: 'a', TaxG: 'A', Amt: '10.00' },
        { _: 'Pos', PN: '2', Dsc: 'b', TaxG: 'B', Amt: '10.00' },
        { _: 'Mod', PN: '2', Dsc: 'rebate', Amt: '-2.00' },
      ], PayA: [{ _: 'Pay', Dsc: 'Cash', Amt: '18.00' }],
      TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '20', Amt: '8.00' }, { _: 'Tax', TaxG: 'B', Prc: '10', Amt: '10.00' }] } },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.TraC.Result.ErrorCode, '#TAX_POS_SUM');
    assert.match(bad.json.TraC.Result.UserMessage, /Tax group A.*10\.00.*8\.00/);
  });
});

describe('validation: each rule fails with its own message', () => {
  const cases: Array<[string, unknown, string, RegExp]> = [
    ['rule 1: positions != T', sale({ T: '5.00', PayA: [{ _: 'Pay', Dsc: 'Cash', Amt: '5.00' }] }), '#POS_SUM', /PosA.*4\.70.*ESR\.T 5\.00/],
    ['rule 2: payments != T', sale({ PayA: [{ _: 'Pay', Dsc: 'Cash', Amt: '4.00' }] }), '#PAY_SUM', /PayA.*4\.00.*4\.70/],
    ['rule 3: taxes != T', sale({ TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '20', Amt: '3.50' }] }), '#TAX_SUM', /TaxA Amt.*3\.50.*4\.70/],
    ['rule 4: Net + TAmt != Amt', sale({ TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '20', Net: '2.92', TAmt: '0.50', Amt: '3.50' }, { _: 'Tax', TaxG: 'B', Prc: '10', Amt: '1.20' }] }), '#TAX_NET', /ESR\.TaxA\[0\].*2\.92.*0\.50.*3\.50/],
    ['rule 7: group amounts != tax element', sale({ TaxA: [{ _: 'Tax', TaxG: 'A', Prc: '20', Amt: '3.60' }, { _: 'Tax', TaxG: 'B', Prc: '10', Amt: '1.10' }] }), '#TAX_POS_SUM', /Tax group A/],
    ['rule 8: D too old', sale({ D: '2001-01-01T10:00:00' }), '#DATE_RANGE', /2001-01-01T10:00:00.*7 days/],
    ['unknown tax letter', sale({}, [['Q', '1.00']]), '#TAX_GROUP', /ESR\.PosA\[0\]\.TaxG "Q"/],
    ['bad amount', sale({}, [['A', '1,00']]), '#INVALID_AMOUNT', /ESR\.PosA\[0\]\.Amt.*1,00/],
    ['D without seconds', sale({ D: '2026-11-21T10:00' }), '#INVALID_DATE', /ESR\.D/],
    ['missing Dsc', { Tra: { ESR: { PosA: [{ _: 'Pos', TaxG: 'A', Amt: '1.00' }], PayA: [{ _: 'Pay', Dsc: 'c', Amt: '1.00' }] } } }, '#MISSING_FIELD', /ESR\.PosA\[0\]\.Dsc is required/],
    ['missing PosA', { Tra: { ESR: { T: '1.00', PayA: [{ _: 'Pay', Dsc: 'c', Amt: '1.00' }] } } }, '#MISSING_FIELD', /ESR\.PosA is required/],
    ['missing ESR', { Tra: {} }, '#MISSING_FIELD', /Tra\.ESR/],
    ['wrong type', sale({ Void: 'yes' }), '#INVALID_TYPE', /ESR\.Void must be 0 or 1/],
    ['FN from the POS', sale({ FN: '77' }), '#FN_GIVEN', /FN/],
    ['Mod naming no position', sale({ PosA: [{ _: 'Pos', Dsc: 'a', TaxG: 'A', Amt: '1.00' }, { _: 'Mod', PN: '9', Amt: '-0.10' }] }), '#MOD_TARGET', /ESR\.PosA\[1\]\.PN "9"/],
    ['unknown root', { Foo: { ESR: {} } }, '#UNKNOWN_ROOT', /Foo/],
  ];
  for (const [name, body, code, message] of cases) {
    test(name, async () => {
      const before = journalRows().length;
      const r = await post(`${svc.url}/register`, body as object);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.TraC.Result.RC, 'BAD');
      assert.equal(r.json.TraC.Result.ErrorCode, code);
      assert.match(r.json.TraC.Result.UserMessage, message);
      assert.equal(journalRows().length, before, 'nothing journaled');
    });
  }

  test('malformed JSON, malformed XML, DOCTYPE, empty body and a huge body answer BAD, never 5xx', async () => {
    const bodies: Array<[string, string, string]> = [
      ['{"Tra": {', 'application/json', '#MALFORMED'],
      ['<Tra><ESR T="1"></Tra>', 'text/xml', '#MALFORMED'],
      ['<?xml version="1.0"?><!DOCTYPE Tra [<!ENTITY x "y">]><Tra><ESR D="&x;"/></Tra>', 'text/xml', '#XML_FORBIDDEN'],
      ['', 'application/json', '#EMPTY_BODY'],
      ['[1,2]', 'application/json', '#MALFORMED'],
      ['"text"', 'application/json', '#MALFORMED'],
      ['\u0000\u0001binary', 'application/octet-stream', '#MALFORMED'],
    ];
    for (const [text, ct, code] of bodies) {
      const r = await post(`${svc.url}/register`, text, { 'content-type': ct });
      assert.equal(r.status, 400, `${text}: ${r.text}`);
      assert.match(r.text, new RegExp(code));
    }
    const big = await post(`${svc.url}/register`, 'x'.repeat(9 * 1024 * 1024), { 'content-type': 'application/json' });
    assert.equal(big.status, 413);
    assert.match(big.text, /#TOO_LARGE/);
  });

  test('messages follow the terminal language (Trm.Lang)', async () => {
    const cfg = await post(`${svc.url}/cfg?rn=lang-test`, { Cfg: { Trm: { TT: '1', Lang: 'de' } } });
    assert.equal(cfg.json.CfgC.Result.RC, 'OK', cfg.text);
    const r = await post(`${svc.url}/register`, { Tra: { ESR: { RN: 'lang-test', T: '9.00', PosA: [{ _: 'Pos', Dsc: 'a', TaxG: 'A', Amt: '1.00' }], PayA: [{ _: 'Pay', Dsc: 'c', Amt: '9.00' }] } } });
    assert.equal(r.json.TraC.Result.ErrorCode, '#POS_SUM');
    assert.match(r.json.TraC.Result.UserMessage, /Summe der Positionsbeträge/);
    for (const [lang, text] of [['fr', /La somme des montants/], ['nl', /Som van de positiebedragen/]] as const) {
      await post(`${svc.url}/cfg?rn=lang-test`, { Cfg: { Trm: { TT: '1', Lang: lang } } });
      const x = await post(`${svc.url}/register`, { Tra: { ESR: { RN: 'lang-test', T: '9.00', PosA: [{ _: 'Pos', Dsc: 'a', TaxG: 'A', Amt: '1.00' }], PayA: [{ _: 'Pay', Dsc: 'c', Amt: '9.00' }] } } });
      assert.match(x.json.TraC.Result.UserMessage, text);
    }
  });
});

describe('business cases are classified and recorded', () => {
  const cases: Array<[string, object, string]> = [
    ['sale', sale({ TT: '20' }), 'sale'],
    ['return', sale({ TT: '20', RFN: '1' }, [['A', '-3.50']]), 'return'],
    ['void', sale({ TT: '20', Void: '1', RTL: '1', RTT: '1', RTN: '2' }, [['A', '-3.50']]), 'void'],
    ['invoice', sale({ TT: '20', Ctm: { Nam: 'ACME', Adr: 'Road 1', Zip: '1010', City: 'Wien' } }), 'invoice'],
    ['voucher', sale({ TT: '20', PosA: [{ _: 'Pos', PTY: 'Vou', Dsc: 'Voucher', TaxG: 'D', Amt: '50.00', VouN: 'V1' }], PayA: [{ _: 'Pay', Dsc: 'Cash', Amt: '50.00' }] }), 'voucher'],
    ['deposit', sale({ TT: '20', PosA: [{ _: 'Pos', PTY: 'Dep', Dsc: 'Bottle', TaxG: 'D', Amt: '0.25' }], PayA: [{ _: 'Pay', Dsc: 'Cash', Amt: '0.25' }] }), 'deposit'],
    ['tip', sale({ TT: '20', PosA: [{ _: 'Pos', PTY: 'Tip', Dsc: 'Tip', TaxG: 'D', Amt: '2.00' }], PayA: [{ _: 'Pay', Dsc: 'Cash', Amt: '2.00' }] }), 'tip'],
    ['non-fiscal NF', { Tra: { ESR: { TT: '20', NF: 'ORDER', PosA: [{ _: 'Pos', Dsc: 'x', TaxG: 'A', Amt: '1.00' }] } } }, 'nonfiscal'],
    ['Z closing', { Tra: { ESR: { TT: '20', NFS: 'Z' } } }, 'closing'],
    ['training', { Tra: { ESR: { TT: '20', NFS: 'TRAINING' } } }, 'training'],
    ['login', { Tra: { ESR: { TT: '20', NFS: 'LOGIN', Opr: '7' } } }, 'login'],
    ['logout', { Tra: { ESR: { TT: '20', NFS: 'LOGOUT', Opr: '7' } } }, 'logout'],
    ['pay-in', { Tra: { ESR: { TT: '20', NFS: 'PAYIN', T: '100.00', PayA: [{ _: 'Pay', Dsc: 'Cash', Amt: '100.00' }] } } }, 'payin'],
    ['pay-out', { Tra: { ESR: { TT: '20', NFS: 'PAYOUT', T: '-20.00', PayA: [{ _: 'Pay', Dsc: 'Cash', Amt: '-20.00' }] } } }, 'payout'],
    ['payment', { Tra: { ESR: { TT: '20', NFS: 'PAY', T: '10.00', PayA: [{ _: 'Pay', Dsc: 'Cash', Amt: '10.00' }] } } }, 'payment'],
    ['reprint', { Tra: { ESR: { TT: '20', NFS: 'DUP', RTN: '1' } } }, 'reprint'],
  ];
  for (const [name, body, bc] of cases) {
    test(name, async () => {
      const r = await post(`${svc.url}/register`, body);
      assert.equal(r.status, 200, r.text);
      const rows = journalRows(`sq = ${r.json.TraC.SQ}`);
      assert.equal(rows[0]?.bc, bc);
    });
  }

  test('Test=1 adds a test tag to Fis; a line void is flagged', async () => {
    const r = await post(`${svc.url}/register`, sale({ TT: '21', Test: '1', PosA: [{ _: 'Pos', Dsc: 'a', TaxG: 'A', Amt: '2.00' }, { _: 'Pos', Dsc: 'a', TaxG: 'A', Amt: '-2.00', Void: '1' }, { _: 'Pos', Dsc: 'b', TaxG: 'A', Amt: '1.00' }], PayA: [{ _: 'Pay', Dsc: 'Cash', Amt: '1.00' }] }));
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.TraC.Fis.Tag, [{ Name: 'Test', Label: 'TEST', Value: 'Test transaction - not a fiscal receipt' }]);
    const db = new Database(join(svc.dataDir, 'journal', 'journal.sqlite'), { readonly: true });
    const row = db.prepare('SELECT data FROM journal WHERE sq = ?').get(r.json.TraC.SQ) as { data: Buffer };
    db.close();
    const rec = JSON.parse(unpackRecordText(row.data));
    assert.equal(rec.BCF, 'lineVoid test');
  });

  test('country fields outside their country: FR_Trainer is no training mark, a bad PT_TaxExemptionCode is refused', async () => {
    const trainer = await post(`${svc.url}/register`, sale({ TT: '22', FR_Trainer: '1' }));
    assert.equal(trainer.status, 200, trainer.text);
    assert.equal(trainer.json.TraC.Fis.Tag, undefined, 'a sale like any other on a register without country');
    const exempt = await post(`${svc.url}/register`, sale({ TT: '22', PosA: [{ _: 'Pos', Dsc: 'Book', PT_TaxExemptionCode: 'M7', Amt: '4.70' }] }));
    assert.equal(exempt.status, 400, exempt.text);
    assert.match(exempt.json.TraC.Result.UserMessage, /ESR\.PosA\[0\]\.PT_TaxExemptionCode/);
    // the code stands for TaxG: 0 %
    const ok = await post(`${svc.url}/register`, sale({ TT: '22', PosA: [{ _: 'Pos', Dsc: 'Book', PT_TaxExemptionCode: 'M07', Amt: '4.70' }] }));
    assert.equal(ok.status, 200, ok.text);
    const tra = await get(`${svc.url}/tra?tl=1&tt=22&tn=${ok.json.TraC.ESR.TN}`);
    assert.deepEqual(tra.json.Tra.ESR.TaxA, [{ _: 'Tax', TaxG: 'D', Prc: '0.00', Net: '4.70', TAmt: '0.00', Amt: '4.70' }]);
  });
});

describe('TraS and Audit', () => {
  test('TraS answers TraSC with an integer TID and StartD; the closing Tra carries TID', async () => {
    const s = await post(`${svc.url}/register`, { TraS: { ESR: { TL: '001', TT: '1' } } });
    assert.equal(s.status, 200, s.text);
    assert.equal(typeof s.json.TraSC.Fis.TID, 'number');
    assert.match(s.json.TraSC.Fis.StartD, /^\d{4}-/);
    const t = await post(`${svc.url}/register`, sale({ TL: '001', TID: String(s.json.TraSC.Fis.TID) }));
    assert.equal(t.json.TraC.Fis.TID, s.json.TraSC.Fis.TID);
    const last = await get(`${svc.url}/last?_=TraS`);
    assert.equal(last.json.TraSC.SQ, s.json.TraSC.SQ);
  });

  test('an Audit record is journaled and answered with AuditC', async () => {
    const a = await post(`${svc.url}/register`, { Audit: { TY: 'EXPORT', Dsc: 'export of the journal' } });
    assert.equal(a.status, 200, a.text);
    assert.equal(a.json.AuditC.Result.RC, 'OK');
    assert.equal(journalRows(`sq = ${a.json.AuditC.SQ}`)[0]?.type, 'Audit');
  });
});

describe('duplicates', () => {
  test('the same TL/TT/TN and content answers OK #DUPLICATE with the original answer, recorded once', async () => {
    const body = sale({ TT: '30', TN: '1', D: undefined });
    const first = await post(`${svc.url}/register`, body);
    const again = await post(`${svc.url}/register`, body);
    assert.equal(again.status, 200);
    assert.equal(again.json.TraC.Result.ErrorCode, '#DUPLICATE');
    assert.equal(again.json.TraC.SQ, first.json.TraC.SQ);
    assert.deepEqual(again.json.TraC.Fis, first.json.TraC.Fis);
    assert.deepEqual(again.json.TraC.ESR, first.json.TraC.ESR);
    const db = new Database(join(svc.dataDir, 'journal', 'journal.sqlite'), { readonly: true });
    const n = db.prepare("SELECT count(*) AS n FROM journal WHERE tt = '30' AND tn = '1'").get() as { n: number };
    db.close();
    assert.equal(n.n, 1);
  });

  test('concurrent identical requests register once', async () => {
    const body = sale({ TT: '31', TN: '9' });
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(`${svc.url}/register`, body)));
    const sqs = new Set(answers.map((a) => a.json.TraC.SQ));
    assert.equal(sqs.size, 1);
    assert.equal(answers.filter((a) => a.json.TraC.Result.ErrorCode === '#DUPLICATE').length, 9);
  });

  test('the same TN with other content in the same year is refused', async () => {
    await post(`${svc.url}/register`, sale({ TT: '32', TN: '5' }));
    const other = await post(`${svc.url}/register`, sale({ TT: '32', TN: '5' }, [['A', '9.99']]));
    assert.equal(other.status, 400);
    assert.equal(other.json.TraC.Result.ErrorCode, '#TN_USED');
  });

  test('POST /restart matches without TN and with another D', async () => {
    const body = sale({ TT: '33' });
    const first = await post(`${svc.url}/register`, body);
    const d = first.json.TraC.ESR.D as string;
    const viaRestart = await post(`${svc.url}/restart`, body);
    assert.equal(viaRestart.json.TraC.Result.ErrorCode, '#DUPLICATE');
    assert.equal(viaRestart.json.TraC.SQ, first.json.TraC.SQ);
    const withD = await post(`${svc.url}/restart`, sale({ TT: '33', D: d.replace(/:\d\d$/, ':00') === d ? d.replace(/:\d\d$/, ':01') : d.replace(/:\d\d$/, ':00') }));
    assert.equal(withD.json.TraC.Result.ErrorCode, '#DUPLICATE');
    const withTn = await post(`${svc.url}/restart`, sale({ TT: '33', TN: first.json.TraC.ESR.TN, D: '2026-01-01T00:00:00'.replace('2026', String(new Date().getFullYear())) }));
    assert.equal(withTn.json.TraC.Result.ErrorCode, '#DUPLICATE');
    // through /register the same content is a new transaction
    const viaRegister = await post(`${svc.url}/register`, body);
    assert.equal(viaRegister.json.TraC.Result.ErrorCode, undefined);
    assert.notEqual(viaRegister.json.TraC.SQ, first.json.TraC.SQ);
  });
});

describe('journal integrity', () => {
  test('records cannot be changed or deleted, even with direct database access', () => {
    const db = new Database(join(svc.dataDir, 'journal', 'journal.sqlite'));
    try {
      assert.throws(() => db.prepare("UPDATE journal SET t = '0.00' WHERE sq = 1").run(), /cannot be changed/);
      assert.throws(() => db.prepare('DELETE FROM journal WHERE sq = 1').run(), /cannot be deleted/);
    } finally {
      db.close();
    }
  });

  test('SQ grows by one per registration and the chain verifies', async () => {
    const { verifyJournal } = await import('./verify-journal.js');
    const report = await verifyJournal(svc.dataDir);
    assert.ok(report.ok, JSON.stringify(report));
    assert.ok(report.count > 10);
  });
});

describe('rule 10: voids name their original, and an original is voided once', () => {
  test('a void without a reference is refused; a second void of the same original is refused', async () => {
    const original = await post(`${svc.url}/register`, sale({ TT: '50' }));
    const fn = original.json.TraC.ESR.FN as string;
    const none = await post(`${svc.url}/register`, sale({ TT: '50', Void: '1' }, [['A', '-3.50'], ['B', '-1.20']]));
    assert.equal(none.status, 400);
    assert.match(none.json.TraC.Result.UserMessage, /ESR\.RFN \(or ESR\.RTL, ESR\.RTT and ESR\.RTN\) is required/);
    const first = await post(`${svc.url}/register`, sale({ TT: '50', Void: '1', RFN: fn }, [['A', '-3.50'], ['B', '-1.20']]));
    assert.equal(first.json.TraC.Result.RC, 'OK', first.text);
    const second = await post(`${svc.url}/register`, sale({ TT: '50', Void: '1', RFN: fn }, [['A', '-3.50'], ['B', '-1.20']]));
    assert.equal(second.status, 400);
    assert.equal(second.json.TraC.Result.ErrorCode, '#ALREADY_VOIDED');
    // the original is named by its TL/TT/TN, found through its FN
    assert.match(second.json.TraC.Result.UserMessage, new RegExp(`1/50/${original.json.TraC.ESR.TN} of \\d{4} was already voided.*SQ ${first.json.TraC.SQ}`));
    const byTn = await post(`${svc.url}/register`, sale({ TT: '50', Void: '1', RTL: '1', RTT: '50', RTN: ` ${original.json.TraC.ESR.TN} ` }, [['A', '-3.50'], ['B', '-1.20']]));
    assert.equal(byTn.json.TraC.Result.ErrorCode, '#ALREADY_VOIDED', 'the same original named by RTL/RTT/RTN');
  });

  test('concurrent voids of one original: exactly one is registered', async () => {
    const voids = await Promise.all(Array.from({ length: 6 }, (_, i) => post(`${svc.url}/register`, sale({ TT: '51', Void: '1', RTL: '1', RTT: '51', RTN: '77', Rsn: `try ${i}` }, [['A', '-1.00']]))));
    assert.equal(voids.filter((v) => v.json.TraC.Result.RC === 'OK').length, 1, voids.map((v) => v.text).join('\n'));
    assert.equal(voids.filter((v) => v.json.TraC.Result.ErrorCode === '#ALREADY_VOIDED').length, 5);
  });
});

describe('JSON and XML give equivalent answers', () => {
  test('the same receipt registered as JSON and as XML answers the same fields and types', async () => {
    const { decodeXml } = await import('../src/register/codec/xml.js');
    const esr = { TL: '7', TN: '1', T: '12.40', Opr: 'Anna & Bob', PosA: [
      { _: 'Pos', PN: '1', Dsc: 'Käse "alt" <200g>', TaxG: 'A', Qty: '2', Pri: '3.10', Amt: '6.20', IN: '0012345678905' },
      { _: 'Mod', PN: '1', Dsc: 'Rabatt', Amt: '-0.20' },
      { _: 'Pos', PN: '2', Dsc: 'Brot', TaxG: 'B', Amt: '6.40' },
      { _: 'Lin', PN: '3', Dsc: 'Danke!' },
    ], PayA: [{ _: 'Pay', Dsc: 'Bar', PayG: 'cash', Amt: '20.00' }, { _: 'Pay', Dsc: 'Wechselgeld', PayG: 'change', Amt: '-7.60' }] };
    const asJson = await post(`${svc.url}/register`, { Tra: { ESR: { ...esr, TT: '60' } } });
    const attrs = (o: Record<string, string>): string => Object.entries(o).filter(([k]) => k !== '_').map(([k, v]) => ` ${k}="${v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')}"`).join('');
    const xml = `<Tra><ESR TL="7" TT="61" TN="1" T="12.40" Opr="Anna &amp; Bob"><PosA>${esr.PosA.map((p) => `<${p._}${attrs(p as Record<string, string>)}/>`).join('')}</PosA><PayA>${esr.PayA.map((p) => `<Pay${attrs(p)}/>`).join('')}</PayA></ESR></Tra>`;
    const asXml = await post(`${svc.url}/register`, xml, { 'content-type': 'application/xml' });
    assert.equal(asJson.status, 200, asJson.text);
    assert.equal(asXml.status, 200, asXml.text);
    const j = asJson.json.TraC;
    const x = decodeXml(asXml.text).body as Record<string, any>;
    assert.equal(String(j.SQ + 1), x.SQ);
    assert.deepEqual(Object.keys(x).sort(), Object.keys(j).sort());
    assert.deepEqual(x.Result, j.Result);
    assert.deepEqual(Object.keys(x.ESR), Object.keys(j.ESR));
    assert.equal(x.ESR.TN, j.ESR.TN);
    assert.deepEqual(Object.keys(x.Fis).sort(), Object.keys(j.Fis).sort());
    const [xp, jp] = [x.Fis.Payload.split(';'), j.Fis.Payload.split(';')];
    assert.equal(xp[7], '7/61/1');
    assert.equal(jp[7], '7/60/1');
    assert.equal(xp[8], '12.40', 'same total in the signed payload');
    assert.equal(jp[8], '12.40');
    // the journal holds the same normalized transaction for both
    const db = new Database(join(svc.dataDir, 'journal', 'journal.sqlite'), { readonly: true });
    const rows = db.prepare('SELECT data FROM journal WHERE sq IN (?, ?) ORDER BY sq').all(j.SQ, Number(x.SQ)) as Array<{ data: Buffer }>;
    db.close();
    const [a, b] = rows.map((r) => JSON.parse(unpackRecordText(r.data)).ESR);
    assert.deepEqual({ ...b, TT: '60', D: undefined }, { ...a, D: undefined });
  });
});
