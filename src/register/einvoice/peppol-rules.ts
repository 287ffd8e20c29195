/**
 * Peppol BIS Billing 3.0 rules beyond EN 16931 that data from an ESR or Cfg can break: the receiver's
 * address scheme and its check digits, and the national rules of the Peppol countries (NL, NO, SE, DK, IS).
 * They run before journaling like the EN 16931 checks; each failure names the rule and the field.
 */
import { cmp, dec, fmt } from '../../shared/money.js';
import { ruleError } from './build.js';
import type { Einvoice, Endpoint } from './model.js';

/** Electronic address schemes (EAS) Peppol accepts (its code list, as of BIS 3.0.15). */
const PEPPOL_EAS = new Set(('0002 0007 0009 0037 0060 0088 0096 0097 0106 0130 0135 0142 0151 0183 0184 0188 0190 0191 0192 0193 0195 0196 0198 0199 ' +
  '0200 0201 0202 0204 0208 0209 0210 0211 0212 0213 0215 0216 0218 0221 0230 9901 9910 9913 9914 9915 9918 9919 9920 9922 9923 9924 9925 ' +
  '9926 9927 9928 9929 9930 9931 9932 9933 9934 9935 9936 9937 9938 9939 9940 9941 9942 9943 9944 9945 9946 9947 9948 9949 9950 9951 9952 ' +
  '9953 9957 9959').split(' '));

function digits(v: string): number[] {
  return [...v].map((c) => c.charCodeAt(0) - 48);
}

/** GS1 check digit of a GLN. */
function glnOk(v: string): boolean {
  if (!/^[0-9]{8,14}$/.test(v)) return false;
  const d = digits(v);
  const check = d.pop() as number;
  const sum = d.reverse().reduce((a, x, i) => a + x * (i % 2 === 0 ? 3 : 1), 0);
  return (10 - (sum % 10)) % 10 === check;
}

/** Mod 11 check digit of a Norwegian organisation number. */
function mod11Ok(v: string): boolean {
  if (!/^[0-9]{9}$/.test(v)) return false;
  const d = digits(v);
  const w = [3, 2, 7, 6, 5, 4, 3, 2];
  const r = 11 - (w.reduce((a, x, i) => a + x * (d[i] as number), 0) % 11);
  return (r === 11 ? 0 : r) === d[8];
}

/** Luhn check digit of a Swedish organisation number. */
function luhnOk(v: string): boolean {
  if (!/^[0-9]{10}$/.test(v)) return false;
  const sum = digits(v).reduce((a, x, i) => a + (i % 2 === 0 ? ((x * 2) % 10) + Math.floor((x * 2) / 10) : x), 0);
  return sum % 10 === 0;
}

function checkEndpoint(e: Endpoint, field: string, party: string): void {
  if (!PEPPOL_EAS.has(e.scheme)) throw ruleError(field, 'PEPPOL-EN16931-CL008', `${party} electronic address scheme ${e.scheme} is not in the Peppol EAS code list`);
  if (e.scheme === '0088' && !glnOk(e.id)) throw ruleError(field, 'PEPPOL-COMMON-R040', `GLN ${e.id} has no valid GS1 format or check digit`);
  if (e.scheme === '0192' && !mod11Ok(e.id)) throw ruleError(field, 'PEPPOL-COMMON-R041', `Norwegian organisation number ${e.id} is not valid`);
  if (e.scheme === '0184' && !/^DK[0-9]{8}$/.test(e.id)) throw ruleError(field, 'PEPPOL-COMMON-R042', `Danish CVR ${e.id} must be DK and 8 digits`);
  if (e.scheme === '0007' && !luhnOk(e.id)) throw ruleError(field, 'PEPPOL-COMMON-R049', `Swedish organisation number ${e.id} is not valid`);
}

export function checkPeppol(inv: Einvoice): void {
  const seller = inv.seller;
  const buyer = inv.buyer;
  const sc = seller.address.country;
  const vat = seller.vatId ?? '';
  if (sc === 'NL') {
    if (inv.creditNote && !inv.preceding) throw ruleError('ESR.RFN', 'NL-R-001', 'A Dutch seller\'s credit note must refer to the invoice (BG-3): send ESR.RFN or RTL/RTT/RTN');
    for (const [key, v] of [['Adr', seller.address.street], ['City', seller.address.city], ['Zip', seller.address.zip]] as const) {
      if (!v) throw ruleError(`Cfg.Cmp.${key}`, 'NL-R-002', 'A Dutch seller\'s address must have street, city and post code');
    }
    if (buyer.address.country === 'NL') {
      for (const [key, v] of [['Adr', buyer.address.street], ['City', buyer.address.city], ['Zip', buyer.address.zip]] as const) {
        if (!v) throw ruleError(`ESR.Ctm.${key}`, 'NL-R-004', 'A Dutch buyer\'s address on a Dutch seller\'s invoice must have street, city and post code');
      }
    }
    const i = inv.lines.findIndex((l) => l.orderLineReference !== undefined);
    if (i >= 0 && !inv.orderReference) throw ruleError('ESR.OrderReference', 'NL-R-009', 'An order line reference needs the order reference (BT-13)');
  }
  if (vat.startsWith('NO') && !(/^NO[0-9]{9}MVA$/.test(vat) && mod11Ok(vat.slice(2, 11)))) {
    throw ruleError('Cfg.Cmp.TaxId', 'NO-R-001', `A Norwegian VAT number is NO, a valid organisation number (nine digits) and MVA, not ${vat}`);
  }
  if (sc === 'SE' && vat.startsWith('SE')) {
    if (!/^SE[0-9]{12}$/.test(vat)) throw ruleError('Cfg.Cmp.TaxId', 'SE-R-001', `A Swedish VAT number is SE and 12 digits, not ${vat}`);
    for (const b of inv.vat) {
      if (b.category === 'S' && !['25', '12', '6'].some((r) => cmp(b.rate, dec(r)) === 0)) throw ruleError('ESR.TaxA', 'SE-R-006', `Swedish sellers use the VAT rates 25, 12 and 6, not ${fmt(b.rate)}`);
    }
  }
  if (sc === 'DK' && !seller.legalId) throw ruleError('Cfg.Cmp.TaxId', 'DK-R-002', 'A Danish seller names its CVR number: configure Cfg.Cmp.TaxId as DK and 8 digits');
  if (sc === 'IS') {
    if (!seller.legalId) throw ruleError('Cfg.Cmp.TIN', 'IS-R-002', 'An Icelandic seller names its kennitala (BT-30): configure Cfg.Cmp.TIN');
    if (!seller.address.street || !seller.address.zip) throw ruleError(seller.address.street ? 'Cfg.Cmp.Zip' : 'Cfg.Cmp.Adr', 'IS-R-003', 'An Icelandic seller\'s address must have street and post code');
  }
  // the national rules first: they say more precisely what is wrong with a seller's number
  if (seller.endpoint) checkEndpoint(seller.endpoint, 'Cfg.Cmp.TaxId', 'Seller');
  if (buyer.endpoint) checkEndpoint(buyer.endpoint, 'ESR.DDto', 'Buyer');
}
