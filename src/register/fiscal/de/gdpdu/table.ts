/**
 * A table of a GDPdU data set ("Beschreibungsstandard für die Datenträgerüberlassung"): its CSV file,
 * name, description and columns with their types. DSFinV-K and the GoBD export are described this way.
 */

export type ColumnType =
  | { kind: 'text'; max?: number }
  | { kind: 'num'; places: number }
  /** local date-time `YYYY-MM-DDThh:mm:ss` */
  | { kind: 'date' }
  /** 0 or 1 (written as a number without decimals) */
  | { kind: 'flag' };

export interface Column {
  name: string;
  desc: string;
  type: ColumnType;
}

export interface Table {
  file: string;
  name: string;
  desc: string;
  /** the first `key` columns are the primary key */
  key: number;
  columns: Column[];
  /** foreign keys: these columns refer to the primary key of the table named */
  references?: Array<{ columns: string[]; table: string }>;
}

export const text = (name: string, desc: string, max?: number): Column => ({ name, desc, type: max === undefined ? { kind: 'text' } : { kind: 'text', max } });
export const num = (name: string, desc: string, places: number): Column => ({ name, desc, type: { kind: 'num', places } });
export const date = (name: string, desc: string): Column => ({ name, desc, type: { kind: 'date' } });
export const flag = (name: string, desc: string): Column => ({ name, desc, type: { kind: 'flag' } });

