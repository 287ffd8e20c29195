/**
 * The public SAF-T PT sample (Saft-PT_4_PHP test resources) and its demo key pair: our verifier accepts
 * every hash of the valid file, names the first broken document of the tampered one, and our signing
 * reproduces the sample's hashes byte for byte from the same key and fields.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { vectorPath } from '../../../shared/testing.js';
import { hashChars, hashMessage, printedHash, signMessage } from './signature.js';
import { decodeXmlBytes } from '../../codec/xml-text.js';
import { child, children, parseXml, textOf } from '../../codec/xml-tree.js';
import { describeSaftReport, verifyExportFile, verifySaft } from './verify.js';

const DATA = vectorPath('pt-saft');
const publicKey = createPublicKey(readFileSync(join(DATA, 'Public_Key.txt'), 'utf8'));
const privateKey = createPrivateKey(readFileSync(join(DATA, 'Private_Key.txt'), 'utf8'));
const load = (name: string) => parseXml(decodeXmlBytes(readFileSync(join(DATA, name))));

test('the valid sample: all 35 signed documents verify, across 17 series', () => {
  const r = verifySaft(load('saft_idemo599999999.xml'), publicKey);
  assert.equal(r.ok, true, describeSaftReport(r));
  assert.equal(r.documents, 35);
  assert.match(describeSaftReport(r), /^OK: 35 documents in \d+ series/);
});

test('the tampered sample: the first broken document is named (1T 1/1)', async () => {
  const r = verifySaft(load('saft_WRONG_INVOICE_SIGNATURE.xml'), publicKey);
  assert.equal(r.ok, false);
  assert.equal(r.broken?.document, '1T 1/1');
  assert.equal(r.broken?.index, 1);
  // through the file entry point too (the key found beside the XML file)
  const out = await verifyExportFile(join(DATA, 'saft_WRONG_INVOICE_SIGNATURE.xml'));
  assert.equal(out.ok, false);
  assert.match(out.text, /^BROKEN at document 1 \(1T 1\/1\): the hash does not verify/);
  assert.equal((await verifyExportFile(join(DATA, 'saft_idemo599999999.xml'))).ok, true);
});

test('our signing reproduces every hash of the sample byte for byte (RSA-SHA1 is deterministic)', () => {
  const root = load('saft_idemo599999999.xml');
  const invoices = children(child(child(child(root, 'AuditFile'), 'SourceDocuments'), 'SalesInvoices'), 'Invoice');
  assert.equal(invoices.length, 24);
  const previous = new Map<string, string>();
  for (const inv of invoices) {
    const no = textOf(inv, 'InvoiceNo') as string;
    const series = no.slice(0, no.lastIndexOf('/'));
    const message = hashMessage({
      invoiceDate: textOf(inv, 'InvoiceDate') as string,
      systemEntryDate: textOf(inv, 'SystemEntryDate') as string,
      invoiceNo: no,
      grossTotal: textOf(child(inv, 'DocumentTotals'), 'GrossTotal') as string,
      previousHash: previous.get(series) ?? '',
    });
    const hash = signMessage(privateKey, message);
    assert.equal(hash, textOf(inv, 'Hash'), no);
    previous.set(series, hash);
  }
  // the first document: its message and printed characters, spelled out
  const first = invoices[0];
  assert.equal(hashMessage({ invoiceDate: '2017-03-10', systemEntryDate: '2017-03-10T15:58:01', invoiceNo: '1T 1/1', grossTotal: '28.07', previousHash: '' }), '2017-03-10;2017-03-10T15:58:01;1T 1/1;28.07;');
  const hash = textOf(first, 'Hash') as string;
  assert.equal(hashChars(hash), `${hash[0]}${hash[10]}${hash[20]}${hash[30]}`);
  assert.equal(hashChars(hash), 'vo6e');
  assert.equal(printedHash(hash, '9999'), 'vo6e-Processado por programa certificado n.º 9999/AT');
});
