/**
 * The elements of a SAF-T Cash Register file the writer repeats: an event (with its X/Z report) and a
 * cashtransaction (lines, VAT, rounding, payments and the chained signature as journaled), after a profile.
 */
import { type Dec, ZERO, add, cmp, parseDec, sub } from '../../../shared/money.js';
import { lines } from '../../codec/index.js';
import { cashTransType } from './cash-transaction.js';
import { paymentTypeOf } from './codes.js';
import { decimal6, percent, tp } from './format.js';
import type { SaftProfile } from './profile.js';
import { type CashTx, amount, artGroupsOf, lineTypeOf, lineVat, money2, qtyOf, text, vatTaxA } from './records.js';
import type { Report } from './report.js';
import type { XmlOut } from './xml-out.js';
import { isMod, isPos } from '../../esr/tax.js';

/** An event as written: its fields, and the X/Z report it carries. */
export interface EventOut {
  id: string;
  type: string;
  transId?: string;
  empId?: string;
  date: string;
  time: string;
  text?: string;
  report?: Report;
  empPayments?: EmpPayment[];
}

/** A report's payments of one employee and payment type (reportEmpPayments). */
export type EmpPayment = { emp: string; type: string; num: number; amnt: Dec };

/** A cash transaction's transType, from what it is. */
export function transTypeOf(tx: CashTx): string {
  return cashTransType(tx.payin ? 'payin' : tx.payout ? 'payout' : tx.bc, tx.training, tx.total);
}

/** An event, with its eventReport when it is an X or Z report. */
export function writeEvent(o: XmlOut, p: SaftProfile, e: EventOut): void {
  o.open('event');
  o.leaf('eventID', e.id, p.idMax);
  o.leaf('eventType', e.type);
  o.leaf('transID', e.transId, p.idMax);
  o.leaf('empID', e.empId, p.idMax);
  o.leaf('eventDate', e.date);
  o.leaf('eventTime', e.time);
  o.leaf('eventText', e.text, 9999);
  if (e.report) writeReport(o, p, e.report, e.empPayments);
  o.close('event');
}

function counted(o: XmlOut, p: SaftProfile, list: string, item: string, names: [string, string, string], entries: Report['artGroups']): void {
  o.open(list);
  for (const c of entries) {
    o.open(item);
    o.leaf(names[0], c.id, p.idMax);
    o.leaf(names[1], c.num);
    o.leaf(names[2], c.amnt);
    o.close(item);
  }
  o.close(list);
}

function writeReport(o: XmlOut, p: SaftProfile, r: Report, empPayments: EmpPayment[] | undefined): void {
  o.open('eventReport');
  o.leaf('reportID', r.reportId, p.idMax);
  o.leaf('reportType', r.kind);
  o.leaf('companyIdent', p.blank !== undefined ? r.companyIdent || p.blank : r.companyIdent, p.idMax);
  o.leaf('companyName', r.companyName, 100);
  o.leaf('reportDate', r.date);
  o.leaf('reportTime', r.time);
  o.leaf('registerID', r.registerId, 100);
  o.open('reportTotalCashSales');
  o.leaf('totalCashSaleAmnt', r.totalCashSale);
  o.close('reportTotalCashSales');
  counted(o, p, 'reportArtGroups', 'reportArtGroup', ['artGroupID', 'artGroupNum', 'artGroupAmnt'], r.artGroups);
  counted(o, p, 'reportPayments', 'reportPayment', ['paymentType', 'paymentNum', 'paymentAmnt'], r.payments);
  if (p.required) {
    o.open('reportEmpPayments');
    for (const e of empPayments ?? []) {
      o.open('reportEmpPayment');
      o.leaf('empID', e.emp, p.idMax);
      o.leaf('paymentType', e.type, p.idMax);
      o.leaf('paymentNum', e.num);
      o.leaf('paymentAmnt', money2(e.amnt));
      o.close('reportEmpPayment');
    }
    o.close('reportEmpPayments');
  }
  o.open('reportCashSalesVat');
  for (const v of r.vat) {
    const code = p.reportVatCode(v);
    if (code === undefined) continue;
    o.open('reportCashSaleVat');
    o.leaf('vatCode', code);
    o.leaf('vatPerc', v.perc);
    o.leaf('cashSaleAmnt', v.base);
    o.leaf('vatAmnt', v.vat);
    o.leaf('vatAmntTp', v.tp);
    o.close('reportCashSaleVat');
  }
  o.close('reportCashSalesVat');
  o.leaf('reportOpeningChangeFloat', r.openingFloat);
  o.leaf('reportReceiptNum', r.receiptNum);
  o.leaf('reportOpenCashBoxNum', r.openCashBoxNum);
  o.leaf('reportReceiptCopyNum', r.copyNum);
  o.leaf('reportReceiptCopyAmnt', r.copyAmnt);
  o.leaf('reportReceiptProformaNum', r.proformaNum);
  o.leaf('reportReceiptProformaAmnt', r.proformaAmnt);
  o.leaf('reportReturnNum', r.returnNum);
  o.leaf('reportReturnAmnt', r.returnAmnt);
  o.leaf('reportDiscountNum', r.discountNum);
  o.leaf('reportDiscountAmnt', r.discountAmnt);
  o.leaf('reportVoidTransNum', r.voidNum);
  o.leaf('reportVoidTransAmnt', r.voidAmnt);
  counted(o, p, 'reportCorrLines', 'reportCorrLine', ['corrLineType', 'corrLineNum', 'corrLineAmnt'], r.corrLines);
  counted(o, p, 'reportPriceInquiries', 'reportPriceInquiry', ['priceInquiryGroup', 'priceInquiryNum', 'priceInquiryAmnt'], r.priceInquiries);
  counted(o, p, 'reportOtherCorrs', 'reportOtherCorr', ['otherCorrType', 'otherCorrNum', 'otherCorrAmnt'], r.otherCorrs);
  o.leaf('reportReceiptDeliveryNum', r.deliveryNum);
  o.leaf('reportReceiptDeliveryAmnt', r.deliveryAmnt);
  o.leaf('reportTrainingNum', r.trainingNum);
  o.leaf('reportTrainingAmnt', r.trainingAmnt);
  if (p.creditBlocks) {
    o.open('reportCreditSales');
    o.leaf('creditSalesNum', 0);
    o.leaf('creditSalesAmnt', '0.00');
    o.close('reportCreditSales');
    o.open('reportCreditMemos');
    o.leaf('creditMemosNum', 0);
    o.leaf('creditMemosAmnt', '0.00');
    o.close('reportCreditMemos');
  }
  counted(o, p, 'reportPayIns', 'reportPayIn', ['payInType', 'payInNum', 'payInAmnt'], r.payIns);
  counted(o, p, 'reportPayOuts', 'reportPayOut', ['payOutType', 'payOutNum', 'payOutAmnt'], r.payOuts);
  o.leaf('reportGrandTotalSales', r.grandTotalSales);
  o.leaf('reportGrandTotalReturn', r.grandTotalReturn);
  o.leaf('reportGrandTotalSalesNet', r.grandTotalNet);
  o.close('eventReport');
}

function vatBlock(o: XmlOut, p: SaftProfile, rate: Dec, vat: Dec, base: Dec): void {
  o.open('vat');
  o.leaf('vatCode', p.vatCode(rate).code);
  o.leaf('vatPerc', percent(rate));
  o.leaf('vatAmnt', money2(vat));
  o.leaf('vatAmntTp', tp(base));
  o.leaf('vatBasAmnt', money2(base));
  o.close('vat');
}

/** A cashtransaction; `pem`: its certificate, written as certificateData. */
export function writeTransaction(o: XmlOut, p: SaftProfile, tx: CashTx, copyCount: number, pem: string | undefined): void {
  const fis = tx.fis;
  const esr = tx.esr;
  const emp = p.txEmployee(tx);
  const taxA = vatTaxA(esr);
  o.open('cashtransaction');
  if (p.signedFields) {
    // the signed values, verbatim: the validator rebuilds the signed string from these texts
    const amntInText = text(fis, 'AmntIn') ?? money2(tx.total);
    const amntIn = amount(amntInText);
    o.leaf('nr', tx.fn);
    o.leaf('transID', text(fis, 'TransID') ?? tx.sq);
    o.leaf('transType', text(fis, 'TransType') ?? 'OTHERTRANS');
    o.leaf('transAmntIn', amntInText);
    o.leaf('transAmntEx', text(fis, 'AmntEx') ?? money2(amntIn));
    o.leaf('amntTp', tp(amntIn));
    o.leaf('empID', emp);
  } else {
    const amntIn = amount(text(fis, 'AmntIn'));
    o.leaf('nr', tx.fn, p.idMax);
    o.leaf('transID', tx.sq, p.idMax);
    o.leaf('transType', transTypeOf(tx));
    o.leaf('transAmntIn', money2(amntIn));
    o.leaf('transAmntEx', money2(amount(text(fis, 'AmntEx'))));
    o.leaf('amntTp', tp(amntIn));
    o.leaf('empID', emp, p.idMax);
  }
  o.leaf('transDate', text(fis, 'TransDate'));
  o.leaf('transTime', text(fis, 'TransTime'));
  o.leaf('refID', text(esr, 'RFN'), 9999);
  const posA = lines(esr, 'PosA').filter((l) => (isPos(l) && text(l, 'Void') !== '1') || isMod(l));
  const groups = artGroupsOf(posA);
  posA.forEach((line, i) => {
    const v = lineVat(line, taxA);
    const mod = isMod(line);
    o.open('ctLine');
    o.leaf('nr', tx.fn, p.idMax);
    o.leaf('lineID', String(i + 1));
    o.leaf('lineType', lineTypeOf(line));
    o.leaf('artGroupID', groups[i], p.idMax);
    if (p.required) {
      o.leaf('artID', p.required.articleId(line));
      // the validator wants a quantity on every line (a discount counts as 1)
      o.leaf('qnt', mod ? '1' : decimal6(qtyOf(line)));
    } else if (!mod) o.leaf('qnt', decimal6(qtyOf(line)));
    o.leaf('lineAmntIn', money2(v.gross));
    o.leaf('lineAmntEx', money2(v.net));
    o.leaf('amntTp', tp(v.gross));
    const pri = text(line, 'Pri');
    const ppu = pri === undefined ? undefined : parseDec(pri.trim());
    if (!mod && ppu) o.leaf('ppu', decimal6(ppu));
    o.leaf('empID', emp, p.idMax);
    o.leaf('cashTransLineDescr', text(line, 'Dsc'), 9999);
    vatBlock(o, p, v.rate, v.vat, v.net);
    o.close('ctLine');
  });
  for (const t of taxA) {
    const rate = amount(text(t, 'Prc'));
    const gross = amount(text(t, 'Amt'));
    const tAmt = text(t, 'TAmt') !== undefined ? amount(text(t, 'TAmt')) : sub(gross, amount(text(t, 'Net')));
    const base = text(t, 'Net') !== undefined ? amount(text(t, 'Net')) : sub(gross, tAmt);
    vatBlock(o, p, rate, tAmt, base);
  }
  const pays = lines(esr, 'PayA');
  const rounding = pays.filter((pay) => (text(pay, 'PayG') ?? '').toLowerCase() === 'rounding').reduce((s, pay) => add(s, amount(text(pay, 'Amt'))), ZERO);
  if (cmp(rounding, ZERO) !== 0) {
    o.open('rounding');
    o.leaf('roundingAmnt', money2(rounding));
    o.close('rounding');
  }
  pays.forEach((pay, index) => {
    if ((text(pay, 'PayG') ?? '').toLowerCase() === 'rounding') return;
    o.open('payment');
    o.leaf('paymentType', paymentTypeOf(text(pay, 'PayG')));
    o.leaf('paidAmnt', money2(amount(text(pay, 'Amt'))));
    o.leaf('empID', emp, p.idMax);
    o.leaf('paymentRefID', p.paymentRefId ? p.paymentRefId(tx, pay, index) : text(pay, 'UID'), 999);
    o.close('payment');
  });
  o.leaf('signature', text(fis, 'Signature') ?? '', 999);
  o.leaf('keyVersion', text(fis, 'KeyVersion') ?? '1', 50);
  if (pem !== undefined) o.leaf('certificateData', pem.trim());
  o.leaf('receiptNum', 1);
  o.leaf('receiptCopyNum', Math.min(copyCount, 999));
  o.leaf('receiptProformaNum', 0);
  o.leaf('receiptDeliveryNum', 0);
  o.leaf('voidTransaction', tx.void ? 'true' : 'false');
  o.leaf('trainingID', tx.training ? 'true' : 'false');
  o.close('cashtransaction');
}
