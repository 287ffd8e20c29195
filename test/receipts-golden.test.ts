/**
 * The receipt layout, compared byte for byte with checked-in golden files: Austrian, German and French
 * receipts, a German receipt with 19 % and 7 % items and a discount listed after its position's
 * neighbours, the same in Dutch, a German Z report in German and English, a French Z report and a
 * Norwegian X report, each at 42 and 48 columns. Then the same lines as the ESC/POS commands (decoded), the PDF (read back by pdftotext) and
 * the HTML (as chromium draws the default template) show them. `UPDATE_GOLDEN=1` writes the golden files anew (look at the diff).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { WIDTHS, qrPngDataUrl, receiptHtml, receiptPdf } from '../src/register/render/index.js';
import { CHAR_WIDTH } from '../src/register/render/receipt-pdf.js';
import { receiptEscpos } from '../src/register/render/receipt-escpos.js';
import { wrap } from '../src/register/render/receipt-lines.js';
import { centred, receiptText } from '../src/register/render/receipt-text.js';
import { readEscpos } from './receipts-escpos-reader.js';
import { CASES, GOLDEN_DIR, caseView, caseRecord } from './receipts-golden-cases.js';
import { tempDir } from './helpers.js';

const BROWSER_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const work = tempDir('efr-golden-');

function textLines(name: string, width: number): string[] {
  const c = CASES.find((x) => x.name === name);
  assert.ok(c, name);
  const text = receiptText(caseView(c), width);
  assert.ok(text.endsWith('\n'));
  return text.slice(0, -1).split('\n');
}

/** The end column of `amount` on the line starting with `start`. */
/**
 * The gross of the mixed receipt's tax rows: on the rate's line at 42 and 48 columns; at 32 a rate's net, tax
 * and gross stand on lines of their own under it (the first `  Brutto` is rate A's).
 */
function grossOfTaxTable(width: number): Array<[string, string]> {
  return width >= 42 ? [['A 19 %', '6,02'], ['B 7 %', '3,70']] : [['  Brutto', '6,02']];
}

function endOf(lines: readonly string[], start: string, amount: string): number {
  const line = lines.find((l) => l.startsWith(start));
  assert.ok(line, `a line starting with ${start} in\n${lines.join('\n')}`);
  const at = line.lastIndexOf(amount);
  assert.ok(at >= 0, `${amount} on "${line}"`);
  return Array.from(line.slice(0, at)).length + Array.from(amount).length;
}

/** The text lines without the written-out QR code (its label and the data below it, up to the next blank line). */
function withoutCode(lines: readonly string[], label: RegExp): string[] {
  const at = lines.findIndex((l) => label.test(l));
  if (at < 0) return [...lines];
  const end = lines.findIndex((l, i) => i > at && l === '');
  return [...lines.slice(0, at), ...(end < 0 ? [] : lines.slice(end))];
}

for (const c of CASES) {
  for (const width of WIDTHS) {
    test(`golden ${c.name} at ${width} columns`, () => {
      const text = receiptText(caseView(c), width);
      const file = join(GOLDEN_DIR, `${c.name}-${width}.txt`);
      if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, text);
      assert.equal(text, readFileSync(file, 'utf8'));
      for (const l of text.split('\n')) assert.ok(Array.from(l).length <= width && l === l.trimEnd(), `"${l}"`);
    });
  }
}

test('the ESC/POS commands print the golden lines: centred by the printer, the code as its own QR code, letters in PC858', () => {
  for (const c of CASES) {
    for (const width of WIDTHS) {
      const view = caseView(c);
      const golden = readFileSync(join(GOLDEN_DIR, `${c.name}-${width}.txt`), 'utf8');
      const printed = readEscpos(receiptEscpos(view, width)).flatMap((p) =>
        'qr' in p ? [`${view.labels.qr}:`, ...wrap(p.qr, width)] : [p.centred && p.text !== '' ? centred(p.text, width) : p.text],
      );
      assert.equal(`${printed.join('\n')}\n`, golden, `${c.name} at ${width}`);
    }
  }
});

test('one amount column: items at 19 % and 7 %, the discount, the total, the payment and the gross of the tax table', () => {
  for (const width of WIDTHS) {
    const lines = textLines('mixed', width);
    const column = width - 2;
    for (const [start, amount] of [['Kaffee to go', '2,80'], ['Brötchen', '1,80'], ['Bier', '3,50'], ['  Stammkunde 10 %', '-0,28'], ['Summe', '9,72'], ['EC-Karte', '9,72'], ...grossOfTaxTable(width)]) {
      assert.equal(endOf(lines, start, amount), column, `${start} at ${width}`);
    }
    // the groups as the tax table names them, though the POS sent "19%" and "7%"
    assert.ok(lines.includes(`Kaffee to go${' '.repeat(width - 12 - 6)}2,80 A`));
    assert.ok(lines.includes(`Brötchen${' '.repeat(width - 8 - 6)}1,80 B`));
  }
});

test('a Mod stands under the position its PN names, wherever the POS listed it', () => {
  const lines = textLines('mixed', 42);
  const kaffee = lines.findIndex((l) => l.startsWith('Kaffee to go'));
  assert.match(lines[kaffee + 1] ?? '', /^ {2}Stammkunde 10 % +-0,28$/);
  assert.equal(lines.filter((l) => l.includes('Stammkunde')).length, 1);
  const at = textLines('at', 42);
  const torte = at.findIndex((l) => l.startsWith('Sachertorte'));
  assert.match(at[torte + 1] ?? '', /^ {2}Stammgast 10 % +-0,59$/);
});

test('numbers and dates in the receipt\'s language: Austrian tags with commas, the country named once', () => {
  const at = textLines('at', 42);
  assert.ok(at.includes('Betrag-Satz-Normal: 20 % 2,50'));
  assert.ok(at.includes('Betrag-Satz-Ermäßigt-1: 10 % 14,51'));
  // the code is the signature's data, not a printed number: it keeps the points
  assert.ok(!withoutCode(at, /^QR-Code:$/).some((l) => /(?<![\d.])\d+\.\d\d(?![\d.])/.test(l)), at.join('\n'));
  assert.equal(at.filter((l) => l.trim() === 'AT').length, 0);
  assert.equal(at.filter((l) => l.trim() === 'Österreich').length, 1);
  assert.ok(at.includes(`Datum${' '.repeat(42 - 5 - 19)}25.11.2026 18:24:15`));
  assert.ok(textLines('fr', 42).includes(`Date${' '.repeat(42 - 4 - 19)}25/11/2026 18:24:15`));
  assert.ok(textLines('mixed-nl', 42).includes(`Totaal${' '.repeat(42 - 6 - 2 - 4)}9,72`));
  assert.ok(textLines('z-en', 42).some((l) => /^Cash +5\.69$/.test(l)));
});

test('X and Z reports: sections, labels in the language, no field names, each value once', () => {
  for (const [name, expected, tagsFrom, total] of [
    ['z-de', ['Z-Bericht', 'Umsätze nach Art', 'Zahlungen', 'Umsatzsteuer nach Sätzen', 'Gesamtsummen', 'Zähler'], 'TrNr:', '15,41'],
    ['z-en', ['Z report', 'Sales by type', 'Payments', 'VAT by rate', 'Grand totals', 'Counters'], 'TrNr:', '15.41'],
    ['z-fr', ['Rapport Z', 'Ventes par type', 'Paiements', 'TVA par taux', 'Catégories', 'Totaux', 'Compteurs'], 'Clôture n° :', '11,90'],
    ['x-no', ['X report', 'Sales by type', 'Payments', 'VAT by rate', 'Grand totals', 'Counters'], 'X-rapport', '75.50'],
  ] as const) {
    const lines = textLines(name, 42).map((l) => l.trim());
    for (const title of expected) assert.ok(lines.includes(title), `${title} in ${name}`);
    const report = lines.slice(0, lines.indexOf(lines.find((l) => l.startsWith(tagsFrom)) ?? ''));
    assert.ok(report.length > 20, name);
    for (const field of ['Z T', 'X T', 'CAmt', 'LastSQ', 'ZTax', 'DrawerOpenCnt', 'sale', 'cash', 'debitcard', 'creditcard', 'VAT 19']) assert.ok(!report.some((l) => l.includes(field)), `${field} in ${name}`);
    assert.ok(!report.some((l) => /^[XZ] \w* /.test(l)), `a field of the report's element in ${name}`);
    // the total once, and the sales that make it
    assert.equal(report.filter((l) => l.endsWith(` ${total}`)).length, 2, `${total} in ${name}`);
  }
  // the country's own lines in its words, their rates and amounts in the receipt's language
  const fr = textLines('z-fr', 42);
  for (const l of ['TTC 20,00 % : 8,50', 'GT perpétuel : 11,90', 'Période : 25/11/2026']) assert.ok(fr.includes(l), l);
  assert.ok(textLines('x-no', 42).includes('X-rapport'));
});

test('the PDF and the HTML show the same lines, the amounts in one column', async () => {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: BROWSER_ARGS });
  try {
    for (const name of ['mixed', 'z-de', 'at']) {
      const c = CASES.find((x) => x.name === name);
      assert.ok(c);
      for (const width of WIDTHS) {
        const view = caseView(c);
        const text = textLines(name, width);
        const qrLabel = new RegExp(`^${view.labels.qr}:$`);

        // PDF: pdftotext at the font's pitch gives the columns back; the page margin indents every line alike
        const path = join(work, `${name}-${width}.pdf`);
        writeFileSync(path, await receiptPdf(view, width));
        const r = spawnSync('pdftotext', ['-fixed', String(CHAR_WIDTH), '-enc', 'UTF-8', path, '-'], { encoding: 'utf8' });
        assert.equal(r.status, 0, r.stderr);
        const pdf = r.stdout.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '' && l !== '\f');
        const margin = Math.min(...pdf.map((l) => /^ */.exec(l)?.[0].length ?? 0));
        // rules are drawn lines, the code a drawn QR code: neither is text
        const printed = withoutCode(text, qrLabel).filter((l) => l !== '' && !/^-+$/.test(l));
        assert.deepEqual(pdf.map((l) => l.slice(margin)), printed, `${name} at ${width}`);

        // HTML: each line of the default template as chromium holds it
        const html = await receiptHtml({ ...view, qr: view.code ? qrPngDataUrl(view.code) : '' }, caseRecord(c), {}, undefined, width);
        const page = await browser.newPage();
        await page.setContent(html);
        const shown = await page.locator('.receipt .l').allTextContents();
        assert.deepEqual(shown, withoutCode(text, qrLabel), `${name} at ${width}`);
        assert.equal(await page.locator('.qr img').count(), view.code ? 1 : 0, 'the code as an image where the text writes it out');
        await page.close();

        if (name === 'mixed') {
          const column = width - 2;
          for (const lines of [pdf.map((l) => l.slice(margin)), shown]) {
            for (const [start, amount] of [['Kaffee to go', '2,80'], ['  Stammkunde', '-0,28'], ['Summe', '9,72'], ['EC-Karte', '9,72'], ...grossOfTaxTable(width).slice(0, 1)]) assert.equal(endOf(lines, start, amount), column);
          }
        }
      }
    }
  } finally {
    await browser.close();
  }
});
