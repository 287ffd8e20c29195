/**
 * The SAF-T Cash Register reader that the Norwegian and Danish verifiers use reads what a namespace-aware
 * reader of the file sees: an element of another namespace, a field twice or a field holding an element is
 * refused, never read in place of the value the file shows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readSaftCashRegisters } from './read-registers.js';

const NS = 'urn:StandardAuditFile-Taxation-CashRegister:NO';
const FIELDS = new Set(['nr', 'transAmntIn', 'signature']);

const file = (tx: string, registerId = '<registerID>K1</registerID>'): string =>
  `<auditfile xmlns="${NS}"><company><companyIdent>999999999</companyIdent><location><cashregister>${registerId}<cashtransaction><nr>1</nr>${tx}<signature>c2ln</signature><ctLine><nr>1</nr></ctLine></cashtransaction></cashregister></location></company></auditfile>`;

test('a clean file is read: the transaction\'s own fields, not its lines\'', () => {
  const read = readSaftCashRegisters(file('<transAmntIn>12.50</transAmntIn>'), NS, FIELDS);
  assert.equal(read.companyIdent, '999999999');
  assert.deepEqual(read.registers.map((r) => [r.registerID, r.transactions]), [['K1', [{ nr: '1', transAmntIn: '12.50', signature: 'c2ln' }]]]);
});

test('an amount hidden in another namespace, a field twice or a field holding an element is refused', () => {
  assert.throws(() => readSaftCashRegisters(file('<transAmntIn>2.50</transAmntIn><x:transAmntIn xmlns:x="urn:other">12.50</x:transAmntIn>'), NS, FIELDS), /\{urn:other\}transAmntIn is not in the file's namespace/);
  assert.throws(() => readSaftCashRegisters(file('<transAmntIn>2.50</transAmntIn><transAmntIn>12.50</transAmntIn>'), NS, FIELDS), /<transAmntIn> twice/);
  assert.throws(() => readSaftCashRegisters(file('<transAmntIn>1<nr/>2.50</transAmntIn>'), NS, FIELDS), /<transAmntIn> holds an element <nr>/);
  assert.throws(() => readSaftCashRegisters(file('<transAmntIn>12.50</transAmntIn>', '<registerID>K2</registerID><registerID>K1</registerID>'), NS, FIELDS), /<registerID> twice/);
});
