/** PUT/GET /repo: versions of documented files, their diffs and signatures in the journal. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifySignature } from '../src/register/security/signer.js';
import { decodeXml } from '../src/register/codec/xml.js';
import { get, http, startTestService } from './helpers.js';
import { verifyJournal } from './verify-journal.js';

test('each PUT journals the diff against the previous version, signed; GET returns the current text or 404', async () => {
  const svc = await startTestService();
  try {
    const key = createPublicKey(readFileSync(join(svc.dataDir, 'keys', 'instance.pub.pem')));
    const missing = await get(`${svc.url}/repo?file=prices.txt`);
    assert.equal(missing.status, 404);
    const v1 = await http('PUT', `${svc.url}/repo?file=prices.txt`, 'coffee 3.00\ntea 2.50\nwater 1.50\n', { 'content-type': 'text/plain' });
    assert.equal(v1.status, 200, v1.text);
    const a1 = v1.json.AuditC;
    assert.equal(a1.Result.RC, 'OK');
    assert.deepEqual(a1.Diff, ['+1 coffee 3.00', '+2 tea 2.50', '+3 water 1.50']);
    assert.ok(verifySignature(key, a1.Fis.Payload, Buffer.from(a1.Fis.Signature, 'base64')));
    const v2 = await http('PUT', `${svc.url}/repo?file=prices.txt`, 'coffee 3.20\ntea 2.50\nwater 1.50\njuice 3.90\n', { 'content-type': 'text/plain' });
    assert.deepEqual(v2.json.AuditC.Diff, ['-1 coffee 3.00', '+1 coffee 3.20', '+4 juice 3.90']);
    assert.equal(v2.json.AuditC.SQ, a1.SQ + 1);
    const now = await get(`${svc.url}/repo?file=prices.txt`);
    assert.equal(now.status, 200);
    assert.equal(now.text, 'coffee 3.20\ntea 2.50\nwater 1.50\njuice 3.90\n');
    const xml = await http('PUT', `${svc.url}/repo?file=prices.txt`, 'coffee 3.20\n', { 'content-type': 'text/plain', accept: 'text/xml' });
    const doc = decodeXml(xml.text);
    assert.equal(doc.root, 'AuditC');
    assert.deepEqual(doc.body.Diff, ['-2 tea 2.50', '-3 water 1.50', '-4 juice 3.90']);
    const bad = await http('PUT', `${svc.url}/repo?file=../etc/passwd`, 'x');
    assert.equal(bad.status, 400);
    const none = await http('PUT', `${svc.url}/repo`, 'x');
    assert.equal(none.status, 400);
    assert.match(none.json.AuditC.Result.UserMessage, /file is required/);
    const report = await verifyJournal(svc.dataDir);
    assert.ok(report.ok, JSON.stringify(report));
    assert.equal(report.count, 3);
  } finally {
    await svc.stop();
  }
});
