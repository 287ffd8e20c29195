/** index.xml of a GDPdU data set: the description of every table, as the GDPdU DTD defines it. */
import { escapeText } from '../../../codec/xml-text.js';
import { GDPDU_DTD_NAME } from './dtd.js';
import type { Column, Table } from './table.js';

export interface DataSetInfo {
  /** DataSupplier: who made the data set, where, and a comment */
  supplier: { name: string; location: string; comment: string };
  media: string;
  /** the period the data covers, dates YYYY-MM-DD */
  validity?: { from: string; to: string };
}

const el = (name: string, value: string): string => `<${name}>${escapeText(value)}</${name}>`;

function columnXml(tag: 'VariablePrimaryKey' | 'VariableColumn', c: Column): string {
  const t = c.type;
  const type =
    t.kind === 'text'
      ? `<AlphaNumeric/>${t.max !== undefined ? el('MaxLength', String(t.max)) : ''}`
      : t.kind === 'date'
        ? '<Date><Format>YYYY-MM-DD"T"hh:mm:ss</Format></Date>'
        : t.kind === 'num' && t.places > 0
          ? `<Numeric>${el('Accuracy', String(t.places))}</Numeric>`
          : '<Numeric/>';
  return `        <${tag}>${el('Name', c.name)}${el('Description', c.desc)}${type}</${tag}>\n`;
}

function tableXml(t: Table, info: DataSetInfo): string {
  const validity = info.validity ? `      <Validity><Range>${el('From', info.validity.from)}${el('To', info.validity.to)}</Range><Format>YYYY-MM-DD</Format></Validity>\n` : '';
  const columns = t.columns.map((c, i) => columnXml(i < t.key ? 'VariablePrimaryKey' : 'VariableColumn', c)).join('');
  const refs = (t.references ?? []).map((r) => `        <ForeignKey>${r.columns.map((n) => el('Name', n)).join('')}${el('References', r.table)}</ForeignKey>\n`).join('');
  return (
    '    <Table>\n' +
    `      ${el('URL', t.file)}\n      ${el('Name', t.name)}\n      ${el('Description', t.desc)}\n` +
    validity +
    '      <UTF8/>\n      <DecimalSymbol>.</DecimalSymbol>\n      <DigitGroupingSymbol>,</DigitGroupingSymbol>\n' +
    '      <Range><From>2</From></Range>\n' +
    '      <VariableLength>\n        <ColumnDelimiter>;</ColumnDelimiter>\n        <RecordDelimiter>&#13;&#10;</RecordDelimiter>\n        <TextEncapsulator>"</TextEncapsulator>\n' +
    columns +
    refs +
    '      </VariableLength>\n    </Table>\n'
  );
}

export function indexXml(tables: readonly Table[], info: DataSetInfo): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<!DOCTYPE DataSet SYSTEM "${GDPDU_DTD_NAME}">\n` +
    '<DataSet>\n  <Version>1.0</Version>\n' +
    `  <DataSupplier>${el('Name', info.supplier.name)}${el('Location', info.supplier.location)}${el('Comment', info.supplier.comment)}</DataSupplier>\n` +
    `  <Media>\n    ${el('Name', info.media)}\n` +
    tables.map((t) => tableXml(t, info)).join('') +
    '  </Media>\n</DataSet>\n'
  );
}
