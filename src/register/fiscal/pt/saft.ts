/**
 * The SAF-T PT 1.04_01 file (Portaria 302/2016): Header, MasterFiles (the customers, the articles and
 * the VAT rates of the documents exported) and SourceDocuments/SalesInvoices with every document, its
 * hash, lines without tax and totals. Written as UTF-8 text; the element order is the schema's.
 */
import { type Dec, ZERO, abs, add, fmt, fmtMoney, sign } from '../../../shared/money.js';
import { escapeText } from '../../codec/xml-text.js';
import { type DocType, type PtAmounts, type PtCustomer, money2 } from './document.js';
import { PT_RATES, type PtRate, rateDescription } from './rates.js';

export interface SaftDocument {
  type: DocType;
  invoiceNo: string;
  atcud: string;
  invoiceDate: string;
  systemEntryDate: string;
  hash: string;
  hashControl: string;
  sourceId: string;
  customer: PtCustomer;
  amounts: PtAmounts;
  /** the corrected document and the reason, on a credit note */
  reference?: { invoiceNo: string; reason: string };
}

export interface SaftHeader {
  companyNif: string;
  companyName: string;
  address: string;
  city: string;
  postalCode: string;
  startDate: string;
  endDate: string;
  dateCreated: string;
  taxEntity: string;
  producerNif: string;
  certificate: string;
  productId: string;
  productVersion: string;
}

/** A tiny writer: elements with text, indented two spaces per level. */
class Xml {
  private readonly out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  private depth = 0;
  open(name: string, attrs = ''): this {
    this.out.push(`${'  '.repeat(this.depth)}<${name}${attrs}>`);
    this.depth += 1;
    return this;
  }
  close(name: string): this {
    this.depth -= 1;
    this.out.push(`${'  '.repeat(this.depth)}</${name}>`);
    return this;
  }
  el(name: string, text: string): this {
    this.out.push(`${'  '.repeat(this.depth)}<${name}>${escapeText(text)}</${name}>`);
    return this;
  }
  text(): string {
    return `${this.out.join('\n')}\n`;
  }
}

/** Whether a line's amount goes to CreditAmount (invoices' own column) rather than DebitAmount. */
export function isCredit(type: DocType, net: Dec): boolean {
  return (type !== 'NC') === (sign(net) >= 0);
}

function address(x: Xml, name: string, a: { address: string; city: string; zip: string; country: string }): void {
  x.open(name).el('AddressDetail', a.address).el('City', a.city).el('PostalCode', a.zip).el('Country', a.country).close(name);
}

export function saftXml(h: SaftHeader, docs: readonly SaftDocument[]): string {
  const x = new Xml();
  x.open('AuditFile', ' xmlns="urn:OECD:StandardAuditFile-Tax:PT_1.04_01" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"');
  x.open('Header')
    .el('AuditFileVersion', '1.04_01')
    .el('CompanyID', h.companyNif)
    .el('TaxRegistrationNumber', h.companyNif)
    .el('TaxAccountingBasis', 'F')
    .el('CompanyName', h.companyName);
  x.open('CompanyAddress').el('AddressDetail', h.address).el('City', h.city).el('PostalCode', h.postalCode).el('Country', 'PT').close('CompanyAddress');
  x.el('FiscalYear', h.startDate.slice(0, 4))
    .el('StartDate', h.startDate)
    .el('EndDate', h.endDate)
    .el('CurrencyCode', 'EUR')
    .el('DateCreated', h.dateCreated)
    .el('TaxEntity', h.taxEntity)
    .el('ProductCompanyTaxID', h.producerNif)
    .el('SoftwareCertificateNumber', h.certificate)
    .el('ProductID', h.productId)
    .el('ProductVersion', h.productVersion)
    .close('Header');

  x.open('MasterFiles');
  const customers = new Map<string, PtCustomer>();
  for (const d of docs) customers.set(d.customer.id, d.customer);
  for (const c of customers.values()) {
    x.open('Customer').el('CustomerID', c.id).el('AccountID', 'Desconhecido').el('CustomerTaxID', c.taxId).el('CompanyName', c.name);
    address(x, 'BillingAddress', c);
    x.el('SelfBillingIndicator', '0').close('Customer');
  }
  // an article's first description and GTIN are its master data
  const products = new Map<string, { description: string; gtin?: string }>();
  for (const d of docs) for (const l of d.amounts.lines) if (!products.has(l.productCode)) products.set(l.productCode, { description: l.productDescription, ...(l.gtin ? { gtin: l.gtin } : {}) });
  for (const [code, p] of products) {
    x.open('Product').el('ProductType', 'P').el('ProductCode', code).el('ProductDescription', p.description).el('ProductNumberCode', p.gtin ?? code).close('Product');
  }
  const used = new Set<PtRate>();
  for (const d of docs) for (const l of d.amounts.lines) used.add(l.rate);
  if (used.size) {
    x.open('TaxTable');
    for (const r of PT_RATES.filter((rate) => used.has(rate))) {
      x.open('TaxTableEntry').el('TaxType', 'IVA').el('TaxCountryRegion', r.region).el('TaxCode', r.code).el('Description', rateDescription(r)).el('TaxPercentage', r.pct).close('TaxTableEntry');
    }
    x.close('TaxTable');
  }
  x.close('MasterFiles');

  let debit = ZERO;
  let credit = ZERO;
  for (const d of docs) {
    for (const l of d.amounts.lines) {
      if (isCredit(d.type, l.net)) credit = add(credit, abs(l.net));
      else debit = add(debit, abs(l.net));
    }
  }
  x.open('SourceDocuments').open('SalesInvoices').el('NumberOfEntries', String(docs.length)).el('TotalDebit', money2(debit)).el('TotalCredit', money2(credit));
  for (const d of docs) {
    x.open('Invoice').el('InvoiceNo', d.invoiceNo).el('ATCUD', d.atcud);
    x.open('DocumentStatus').el('InvoiceStatus', 'N').el('InvoiceStatusDate', d.systemEntryDate).el('SourceID', d.sourceId).el('SourceBilling', 'P').close('DocumentStatus');
    x.el('Hash', d.hash).el('HashControl', d.hashControl).el('Period', String(Number(d.invoiceDate.slice(5, 7)))).el('InvoiceDate', d.invoiceDate).el('InvoiceType', d.type);
    x.open('SpecialRegimes').el('SelfBillingIndicator', '0').el('CashVATSchemeIndicator', '0').el('ThirdPartiesBillingIndicator', '0').close('SpecialRegimes');
    x.el('SourceID', d.sourceId).el('SystemEntryDate', d.systemEntryDate).el('CustomerID', d.customer.id);
    for (const l of d.amounts.lines) {
      x.open('Line')
        .el('LineNumber', String(l.number))
        .el('ProductCode', l.productCode)
        .el('ProductDescription', products.get(l.productCode)?.description ?? l.productDescription)
        .el('Quantity', fmt(l.quantity))
        .el('UnitOfMeasure', l.unit)
        .el('UnitPrice', fmtMoney(l.unitPrice))
        .el('TaxPointDate', d.invoiceDate);
      if (d.reference) x.open('References').el('Reference', d.reference.invoiceNo).el('Reason', d.reference.reason).close('References');
      x.el('Description', l.description).el(isCredit(d.type, l.net) ? 'CreditAmount' : 'DebitAmount', money2(abs(l.net)));
      x.open('Tax').el('TaxType', 'IVA').el('TaxCountryRegion', l.rate.region).el('TaxCode', l.rate.code).el('TaxPercentage', l.rate.pct).close('Tax');
      if (l.exemption) x.el('TaxExemptionReason', l.exemption.reason).el('TaxExemptionCode', l.exemption.code);
      x.close('Line');
    }
    x.open('DocumentTotals').el('TaxPayable', money2(d.amounts.taxPayable)).el('NetTotal', money2(d.amounts.netTotal)).el('GrossTotal', money2(d.amounts.grossTotal));
    if (d.type === 'FS' || d.type === 'FR') {
      for (const p of d.amounts.payments) {
        x.open('Payment').el('PaymentMechanism', p.mechanism).el('PaymentAmount', money2(p.amount)).el('PaymentDate', d.invoiceDate).close('Payment');
      }
    }
    x.close('DocumentTotals').close('Invoice');
  }
  x.close('SalesInvoices').close('SourceDocuments').close('AuditFile');
  return x.text();
}
