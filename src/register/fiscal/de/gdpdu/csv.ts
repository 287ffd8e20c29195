/**
 * Writes the CSV file of a GDPdU table: UTF-8, `;` between columns, CRLF between records, text in
 * double quotes (a quote doubled), numbers with `.` and exactly the table's decimal places, date-times
 * `YYYY-MM-DDThh:mm:ss`, flags 0/1; the first record names the columns (index.xml skips it with
 * Range From 2). Every value is checked against its column: a number that is not one or a malformed
 * date is a bug and throws; text longer than the column allows is cut, line breaks become spaces.
 */
import { parseDec, round, fmt } from '../../../../shared/money.js';
import type { Column, Table } from './table.js';

export type Row = Readonly<Record<string, string | undefined>>;

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const quote = (s: string): string => `"${s.replace(/"/g, '""')}"`;

export function cell(column: Column, value: string | undefined, where: string): string {
  if (value === undefined || value === '') return column.type.kind === 'text' ? '""' : '';
  const t = column.type;
  switch (t.kind) {
    case 'text': {
      const flat = value.replace(/[\r\n\t]+/g, ' ');
      return quote(t.max !== undefined ? [...flat].slice(0, t.max).join('') : flat);
    }
    case 'num': {
      const d = parseDec(value);
      if (!d) throw new Error(`${where}: ${column.name} "${value}" is not a number`);
      return fmt(round(d, t.places), t.places);
    }
    case 'date':
      if (!DATE_TIME.test(value)) throw new Error(`${where}: ${column.name} "${value}" is not a date-time YYYY-MM-DDThh:mm:ss`);
      return value;
    case 'flag':
      if (value !== '0' && value !== '1') throw new Error(`${where}: ${column.name} "${value}" is not 0 or 1`);
      return value;
  }
}

/** The rows of one table, kept as CSV text. */
export class CsvTable {
  private readonly parts: string[];
  rows = 0;
  constructor(readonly table: Table) {
    this.parts = [`${table.columns.map((c) => quote(c.name)).join(';')}\r\n`];
  }

  add(row: Row): void {
    for (const name of Object.keys(row)) {
      if (!this.table.columns.some((c) => c.name === name)) throw new Error(`${this.table.file}: no column ${name}`);
    }
    this.rows += 1;
    const where = `${this.table.file} record ${this.rows}`;
    this.parts.push(`${this.table.columns.map((c) => cell(c, row[c.name], where)).join(';')}\r\n`);
  }

  text(): string {
    return this.parts.join('');
  }
}
