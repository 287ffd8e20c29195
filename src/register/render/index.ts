/**
 * The public rendering entry: what a program outside the register service (the management portal) uses to draw
 * a journaled receipt exactly as the service draws it. Nothing else in src/register is meant for such a program
 * besides the codec; this file names the few functions and types it may rely on.
 *
 * It takes a journal record's data (a receipt record as /tra and /find show it: ESR, Fis, SQ, RN, TS, BC, Z) and
 * the Cfg in force when the record was made, plus the record's chain hash and signature where its answer is
 * rebuilt. It promises:
 * - the same output as the service's GET /render, /render/pdf and the printed receipt for the same record, Cfg
 *   and language: one view model (`receiptView`), laid out once in fixed-width lines (32, 42 or 48 columns,
 *   `receiptLines`), feeds the text, the PDF and the default HTML template (a given layout gets the view and
 *   the lines too, run in the template sandbox);
 * - the record's Fis as the service answered it (`answerOf`): with the journal signature as Fis.Signature and in
 *   Fis.Code where the country module did not sign;
 * - the document handles of digital receipts as the service makes them (a 16-character register handle, a
 *   5-character transaction handle from the record's signature);
 * - nothing here opens the journal, reads the service's context or data folder, or registers routes,
 *   so loading it does not load the service.
 */
export { type ReceiptRecord, type ReceiptType, type ReceiptView, type ViewInput, receiptView } from './receipt-view.js';
export type { ItemView, ReportRow, ReportSection, ReportView, TaxView } from './receipt-view.js';
export { receiptText } from './receipt-text.js';
export { receiptHtml } from './receipt-html.js';
export type { Layout } from './layout-store.js';
export type { TemplateKind } from './template-sandbox.js';
export { type ReceiptLine, type Section, DEFAULT_WIDTH, WIDTHS, receiptLines } from './receipt-lines.js';
export { receiptPdf } from './receipt-pdf.js';
export { type QrImageOptions, qrPngDataUrl } from './qr/index.js';
export { REGISTER_HANDLE_LENGTH, TRANSACTION_HANDLE_LENGTH, transactionHandle } from './qr/document-handle.js';
export { type Sealed, answerOf } from '../record-answer.js';
export { type EinvoiceDocument, einvoiceOfRecord, hasEinvoice } from './einvoice-document.js';
