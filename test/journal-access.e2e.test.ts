/** GET /find, /tra and /retrieve over real HTTP on a journal of 2,500 transactions. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeXml } from '../src/register/codec/xml.js';
import { type TestService, get, post, sale, startTestService } from './helpers.js';

let svc: TestService;
const N = 2500;
before(async () => {
  svc = await startTestService();
  for (let i = 0; i < N; i += 100) {
    const chunk = Array.from({ length: Math.min(100, N - i) }, (_, k) => {
      const n = i + k + 1;
      return post(`${svc.url}/register`, sale({ TT: String((n % 3) + 1), TN: String(n), Opr: n % 5 === 0 ? 'anna' : 'bob' }, [['A', `${n % 7 + 1}.00`]]));
    });
    const answers = await Promise.all(chunk);
    for (const a of answers) assert.equal(a.json.TraC.Result.RC, 'OK', a.text);
  }
});
after(async () => {
  await svc.stop();
});

async function pageAll(sort: 'asc' | 'desc', rows: number): Promise<number[]> {
  const sqs: number[] = [];
  let continuation: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const r = await get(`${svc.url}/find?_=Tra&sort=${sort}&limit=${rows}rows5000ms${continuation ? `&continuation=${continuation}` : ''}`);
    assert.equal(r.status, 200, r.text.slice(0, 300));
    const f = r.json.Find;
    for (const rec of f.Records) sqs.push(rec.SQ);
    assert.equal(Number(f.Count), f.Records.length);
    continuation = f.Continuation;
    if (!continuation) break;
  }
  return sqs;
}

describe('GET /find', () => {
  test('pages through 2,500 records by continuation, ascending and descending, each record once', async () => {
    const asc = await pageAll('asc', 700);
    assert.equal(asc.length, N);
    assert.deepEqual(asc, Array.from({ length: N }, (_, i) => i + 1));
    const desc = await pageAll('desc', 1000);
    assert.deepEqual(desc, [...asc].reverse());
  });

  test('default: newest first, at most 1000 rows', async () => {
    const r = await get(`${svc.url}/find`);
    assert.equal(r.json.Find.Records.length, 1000);
    assert.equal(r.json.Find.Records[0].SQ, N);
    assert.ok(r.json.Find.Continuation);
  });

  test('filters: FN, TL/TT/TN, an ESR property, a record type; records carry _ and the fiscal data', async () => {
    const byFn = await get(`${svc.url}/find?fn=1234`);
    assert.equal(byFn.json.Find.Records.length, 1);
    const rec = byFn.json.Find.Records[0];
    assert.equal(rec._, 'Tra');
    assert.equal(rec.Fis.FN, '1234');
    assert.match(rec.Fis.Signature, /^[A-Za-z0-9+/]+=*$/);
    const byTn = await get(`${svc.url}/find?TL=1&TT=${(1234 % 3) + 1}&TN=1234`);
    assert.equal(byTn.json.Find.Records[0].SQ, rec.SQ);
    const anna = await get(`${svc.url}/find?opr=anna&limit=5000rows`);
    assert.equal(anna.json.Find.Records.length, N / 5);
    assert.ok(anna.json.Find.Records.every((x: { ESR: { Opr: string } }) => x.ESR.Opr === 'anna'));
    const t = await get(`${svc.url}/find?t=7.00&limit=5000rows`);
    assert.equal(t.json.Find.Records.length, [...Array(N).keys()].filter((i) => (i + 1) % 7 === 6).length);
    const none = await get(`${svc.url}/find?_=Cfg`);
    assert.equal(none.json.Find.Records.length, 0);
    assert.equal(none.json.Find.Continuation, undefined);
  });

  test('from/till select by the date of D', async () => {
    const today = (await get(`${svc.url}/last`)).json.TraC.ESR.D.slice(0, 10) as string;
    const r = await get(`${svc.url}/find?from=${today}&till=${today}&limit=5000rows`);
    assert.equal(r.json.Find.Records.length, N);
    const r2 = await get(`${svc.url}/find?from=2000-01-01&till=2000-12-31`);
    assert.equal(r2.json.Find.Records.length, 0);
  });

  test('the time limit of limit is honoured: a slow search stops early with a continuation', async () => {
    const r = await get(`${svc.url}/find?opr=nobody&limit=10000rows1ms`);
    assert.equal(r.status, 200);
    assert.ok(r.json.Find.Continuation, 'stopped with a continuation');
    assert.match(r.json.Find.Warning[0], /stopped after 1 ms/);
  });

  test('XML by Accept', async () => {
    const r = await get(`${svc.url}/find?fn=10`, { accept: 'text/xml' });
    const doc = decodeXml(r.text);
    assert.equal(doc.root, 'Find');
    const records = doc.body.Records as Array<Record<string, unknown>>;
    assert.equal(records[0]?._, 'Tra');
    assert.equal(records[0]?.SQ, '10');
  });

  test('bad parameters are refused naming them', async () => {
    for (const [qs, msg] of [['limit=lots', /limit/], ['sort=up', /sort/], ['continuation=xyz', /continuation/], ['_=Foo', /_:/], ['from=yesterday', /from/]] as const) {
      const r = await get(`${svc.url}/find?${qs}`);
      assert.equal(r.status, 400, qs);
      assert.match(r.json.Result.UserMessage, msg);
    }
    const unknown = await get(`${svc.url}/find?rn=nothing`);
    assert.equal(unknown.status, 404);
  });
});

describe('GET /tra', () => {
  test('finds a transaction by TL/TT/TN, 404 otherwise', async () => {
    const r = await get(`${svc.url}/tra?TL=1&TT=1&TN=3`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.Tra.ESR.TN, '3');
    assert.equal(r.json.Tra.SQ, 3);
    const missing = await get(`${svc.url}/tra?TL=1&TT=2&TN=3`);
    assert.equal(missing.status, 404);
  });
});

describe('GET /retrieve', () => {
  test('streams the records after SQ last up to endSQ, in JSON and XML', async () => {
    const r = await get(`${svc.url}/retrieve?last=2400&endSQ=2450`);
    assert.equal(r.status, 200, r.text.slice(0, 200));
    const sqs = r.json.Retrieve.Records.map((x: { SQ: number }) => x.SQ);
    assert.deepEqual(sqs, Array.from({ length: 50 }, (_, i) => 2401 + i));
    const all = await get(`${svc.url}/retrieve?last=0`);
    assert.equal(all.json.Retrieve.Records.length, N);
    const xml = await get(`${svc.url}/retrieve?last=2498`, { accept: 'application/xml' });
    assert.match(xml.text, /^<\?xml[^>]*>\n<Retrieve><Records><Tra SQ="2499"[^]*<Tra SQ="2500"[^]*<\/Records><\/Retrieve>$/);
    const missing = await get(`${svc.url}/retrieve`);
    assert.equal(missing.status, 400);
    assert.match(missing.json.Result.UserMessage, /last is required/);
  });

  test('with target, writes files of 1000 records below the data folder', async () => {
    const r = await get(`${svc.url}/retrieve?last=500&target=audit1`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.Retrieve.Count, '2000');
    assert.equal(r.json.Retrieve.Files, '0000.jou 0001.jou 0002.jou');
    const f1 = JSON.parse(readFileSync(join(svc.dataDir, 'retrieve', 'audit1', '0001.jou'), 'utf8'));
    assert.equal(f1.length, 1000);
    assert.equal(f1[0].SQ, 1000);
    const escape = await get(`${svc.url}/retrieve?last=0&target=../../etc`);
    assert.equal(escape.status, 400);
    assert.ok(!existsSync(join(svc.dataDir, '..', '..', 'etc', '0000.jou')));
  });
});
