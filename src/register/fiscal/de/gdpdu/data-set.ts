/** A GDPdU data set as a zip: the CSV file of every table, index.xml describing them and the DTD. */
import { ZipFile } from 'yazl';
import type { CsvTable } from './csv.js';
import { GDPDU_DTD, GDPDU_DTD_NAME } from './dtd.js';
import { type DataSetInfo, indexXml } from './index-xml.js';

export function gdpduZip(tables: readonly CsvTable[], info: DataSetInfo, extra: ReadonlyArray<{ name: string; data: Buffer }> = []): NodeJS.ReadableStream {
  const zip = new ZipFile();
  zip.addBuffer(Buffer.from(indexXml(tables.map((t) => t.table), info)), 'index.xml');
  zip.addBuffer(Buffer.from(GDPDU_DTD), GDPDU_DTD_NAME);
  for (const t of tables) zip.addBuffer(Buffer.from(t.text()), t.table.file);
  for (const f of extra) zip.addBuffer(f.data, f.name);
  zip.end();
  return zip.outputStream;
}
