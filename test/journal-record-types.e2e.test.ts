/**
 * The journal record types of the spec's Events section, after a Z and restarts of the service on the same
 * data folder: each start is a `log` record START_EFR in every register (`/find?_=log`), GET /last still
 * answers the last transaction, and the Z is a `Tra` (NFS Z) as the spec registers it, so `/find?_=Rep`
 * finds none. JSON and XML.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { decodeXml } from '../src/register/codec/xml.js';
import { get, post, sale, startTestService, tempDir } from './helpers.js';

type Rec = Record<string, unknown> & { _: string; SQ: number | string; Event?: string };

test('every start of the service is journaled as a log record START_EFR per register; a Z is a Tra, no Rep', async () => {
  const dataDir = tempDir();
  try {
    let svc = await startTestService({ dataDir });
    // a new instance has no register yet: its first start journals nothing
    assert.equal((await post(`${svc.url}/register`, sale({ TN: '1' }))).json.TraC.SQ, 1);
    assert.equal((await post(`${svc.url}/register?rn=K2`, sale({ TN: '1' }))).json.TraC.SQ, 1);
    const z = await post(`${svc.url}/register`, sale({ TN: '2', NFS: 'Z' }, []));
    assert.equal(z.json.TraC.Result.RC, 'OK', z.text);
    assert.ok(z.json.TraC.Fis.Z, 'the Z report is in the answer');
    assert.equal((await get(`${svc.url}/find?_=log`)).json.Find.Records.length, 0);
    await svc.stop();

    svc = await startTestService({ dataDir });
    const logs = await get(`${svc.url}/find?_=log`);
    assert.equal(logs.status, 200, logs.text);
    const records = logs.json.Find.Records as Rec[];
    assert.equal(records.length, 1, logs.text);
    assert.equal(records[0]?._, 'log');
    assert.equal(records[0]?.SQ, 3, 'after the sale and the Z');
    assert.equal(records[0]?.Event, 'START_EFR');
    assert.match(String(records[0]?.TS), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    assert.equal(typeof records[0]?.Version, 'string');
    // every register: K2 too
    const k2 = (await get(`${svc.url}/find?_=log&rn=K2`)).json.Find.Records as Rec[];
    assert.deepEqual(k2.map((r) => [r._, r.SQ, r.Event]), [['log', 2, 'START_EFR']]);
    // XML
    const xml = decodeXml((await get(`${svc.url}/find?_=log`, { accept: 'text/xml' })).text);
    assert.equal(xml.root, 'Find');
    const xmlRecords = [xml.body.Records].flat() as Rec[];
    assert.equal(xmlRecords.length, 1);
    assert.equal(xmlRecords[0]?._, 'log');
    assert.equal(xmlRecords[0]?.Event, 'START_EFR');

    // GET /last answers the last transaction (the Z), not the start; _=log the start record
    const last = await get(`${svc.url}/last`);
    assert.equal(last.status, 200, last.text);
    assert.equal(last.json.TraC.SQ, 2);
    assert.ok(last.json.TraC.Fis.Z, 'the Z report');
    const lastXml = await get(`${svc.url}/last`, { accept: 'text/xml' });
    assert.match(lastXml.text, /<TraC SQ="2">/);
    const lastLog = await get(`${svc.url}/last?_=log`);
    assert.equal(lastLog.status, 200, lastLog.text);
    assert.match(lastLog.text, /"SQ":3\b/, 'the answer of the start record');

    // the Z is the transaction the POS registered (NFS Z), found as such; there is no Rep record
    const reps = await get(`${svc.url}/find?_=Rep`);
    assert.equal(reps.status, 200, reps.text);
    assert.equal(reps.json.Find.Records.length, 0);
    const repsXml = await get(`${svc.url}/find?_=Rep`, { accept: 'text/xml' });
    assert.equal(repsXml.status, 200);
    assert.equal(decodeXml(repsXml.text).root, 'Find');
    const zs = (await get(`${svc.url}/find?nfs=Z`)).json.Find.Records as Rec[];
    assert.deepEqual(zs.map((r) => [r._, r.SQ]), [['Tra', 2]]);

    // the numbering goes on after the start record
    assert.equal((await post(`${svc.url}/register`, sale({ TN: '3' }))).json.TraC.SQ, 4);
    await svc.stop();

    svc = await startTestService({ dataDir });
    const again = (await get(`${svc.url}/find?_=log&sort=asc`)).json.Find.Records as Rec[];
    assert.deepEqual(again.map((r) => [r.SQ, r.Event]), [[3, 'START_EFR'], [5, 'START_EFR']]);
    assert.equal((await get(`${svc.url}/last`)).json.TraC.SQ, 4);
    await svc.stop();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a register that has journaled nothing yet gets no start record: it stays empty, as a restore into it needs', async () => {
  const dataDir = tempDir();
  let svc: Awaited<ReturnType<typeof startTestService>> | undefined;
  try {
    svc = await startTestService({ dataDir });
    // the register is made, and the transaction answered by TEST_RC before anything is journaled
    assert.equal((await post(`${svc.url}/profile?rn=K3`, { Badge: 'B', Attributes: 'TEST_RC=BAD' })).status, 200);
    const refused = await post(`${svc.url}/register?rn=K3`, sale({ TN: '1' }));
    assert.equal(refused.json.TraC?.Result?.RC ?? refused.json.Result?.RC, 'BAD', refused.text);
    await svc.stop();
    svc = undefined;

    svc = await startTestService({ dataDir });
    const k3 = await get(`${svc.url}/find?_=log&rn=K3`);
    assert.equal(k3.status, 200, k3.text);
    assert.deepEqual(k3.json.Find.Records, [], k3.text);
  } finally {
    await svc?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
