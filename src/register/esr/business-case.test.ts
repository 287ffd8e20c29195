import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Obj } from '../codec/index.js';
import { classify } from './business-case.js';

const pos = (extra: Obj = {}): Obj => ({ _: 'Pos', PN: '1', Dsc: 'x', TaxG: 'A', Amt: '10.00', ...extra });
const sale = (extra: Obj = {}): Obj => ({ T: '10.00', PosA: [pos()], PayA: [{ _: 'Pay', Dsc: 'Cash', PayG: 'cash', Amt: '10.00' }], ...extra });

describe('classify', () => {
  test('a plain sale', () => {
    assert.deepEqual(classify(sale()), { kind: 'sale', flags: [], fiscal: true });
  });

  test('a return: negative T', () => {
    const bc = classify(sale({ T: '-10.00', PosA: [pos({ Amt: '-10.00' })] }));
    assert.equal(bc.kind, 'return');
    assert.equal(bc.fiscal, true);
  });

  test('a return: reference to the original and only negative positions', () => {
    assert.equal(classify({ RFN: '123', PosA: [pos({ Amt: '-10.00' })] }).kind, 'return');
    assert.equal(classify({ RTL: '1', RTT: '1', RTN: '5', PosA: [pos({ Amt: '-1.00' }), pos({ Amt: '-2.00' })] }).kind, 'return');
    // a reference alone with a positive position is a sale
    assert.equal(classify({ RFN: '123', PosA: [pos({ Amt: '1.00' })] }).kind, 'sale');
  });

  test('a void: Void=1 wins over a negative total', () => {
    const bc = classify(sale({ Void: '1', T: '-10.00', RFN: '1' }));
    assert.equal(bc.kind, 'void');
    assert.equal(bc.fiscal, true);
    assert.equal(classify(sale({ Void: '0' })).kind, 'sale');
  });

  test('an invoice: Ctm present, or DT naming an invoice', () => {
    const bc = classify(sale({ Ctm: { Nam: 'ACME', Adr: 'Main St', Zip: '1010', City: 'Wien' } }));
    assert.equal(bc.kind, 'invoice');
    assert.ok(bc.flags.includes('invoice'));
    assert.equal(bc.fiscal, true);
    assert.equal(classify(sale({ DT: 'Invoice' })).kind, 'invoice');
  });

  test('e-invoicing: DD sets the einvoice flag', () => {
    const bc = classify(sale({ DD: 'AT-TEST', Ctm: { Nam: 'ACME' } }));
    assert.equal(bc.kind, 'invoice');
    assert.ok(bc.flags.includes('einvoice'));
  });

  test('voucher, deposit and tip: only positions of that PTY', () => {
    for (const [pty, kind] of [['Vou', 'voucher'], ['Dep', 'deposit'], ['Tip', 'tip']] as const) {
      const only = classify(sale({ PosA: [pos({ PTY: pty }), pos({ PN: '2', PTY: pty })] }));
      assert.equal(only.kind, kind, pty);
      assert.ok(only.flags.includes(kind));
      assert.equal(only.fiscal, true);
      const mixed = classify(sale({ PosA: [pos({ PTY: pty }), pos({ PN: '2' })] }));
      assert.equal(mixed.kind, 'sale', `${pty} mixed with a normal position`);
      assert.ok(mixed.flags.includes(kind));
    }
  });

  test('a Mod does not turn a voucher sale into a sale', () => {
    assert.equal(classify(sale({ PosA: [pos({ PTY: 'Vou' }), { _: 'Mod', Amt: '-1.00' }] })).kind, 'voucher');
  });

  test('advance and free-of-charge positions are flags of a sale', () => {
    const bc = classify(sale({ PosA: [pos({ PTY: 'Adv' }), pos({ PN: '2', PTY: 'FoC' })] }));
    assert.equal(bc.kind, 'sale');
    assert.ok(bc.flags.includes('advance'));
    assert.ok(bc.flags.includes('foc'));
  });

  test('non-fiscal: NF', () => {
    assert.deepEqual(classify({ NF: 'order', PosA: [pos()] }), { kind: 'nonfiscal', flags: [], fiscal: false });
  });

  test('NFS kinds', () => {
    const kinds: Record<string, string> = {
      Z: 'closing', TRAINING: 'training', PAY: 'payment', LOGIN: 'login', LOGOUT: 'logout',
      PAYIN: 'payin', PAYOUT: 'payout', DUP: 'reprint',
    };
    for (const [nfs, kind] of Object.entries(kinds)) {
      const bc = classify({ NFS: nfs });
      assert.equal(bc.kind, kind, nfs);
      assert.equal(bc.fiscal, false, nfs);
    }
    assert.equal(classify({ NFS: 'z' }).kind, 'closing');
    assert.equal(classify({ NFS: 'SOMETHING' }).kind, 'nonfiscal');
  });

  test('NFS wins over Void and NF', () => {
    assert.equal(classify({ NFS: 'DUP', Void: '1', NF: 'x' }).kind, 'reprint');
    assert.equal(classify({ NF: 'x', Void: '1' }).kind, 'nonfiscal');
  });

  test('flags: test and lineVoid and resume', () => {
    const bc = classify(sale({ Test: '1', PosA: [pos(), pos({ PN: '2', Void: '1', Amt: '-10.00' }), pos({ PN: '3', Resume: '1' })] }));
    assert.equal(bc.kind, 'sale');
    assert.ok(bc.flags.includes('test'));
    assert.ok(bc.flags.includes('lineVoid'));
    assert.ok(bc.flags.includes('resume'));
    assert.deepEqual(classify(sale({ Test: '0' })).flags, []);
    assert.deepEqual(classify({ NFS: 'Z', Test: '1' }).flags, ['test']);
  });
});
