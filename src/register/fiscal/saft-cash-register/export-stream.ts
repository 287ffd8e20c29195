/**
 * The plumbing of the SAF-T Cash Register exports: the journal records read for the writer, and the
 * writer's text chunks streamed into a zip entry.
 */
import { Readable } from 'node:stream';
import type { ZipFile } from 'yazl';
import type { Obj } from '../../codec/index.js';
import type { JournalRecord } from '../../journal/types.js';

/** The journal records' data (JournalRecord.data parsed), in the order read. */
export async function* readRecords(records: AsyncIterable<JournalRecord>): AsyncGenerator<Obj> {
  for await (const r of records) yield JSON.parse(r.data) as Obj;
}

/**
 * Puts streamed XML chunks into a zip entry: the first chunk is awaited here (the first pass over the journal
 * runs, and its errors, e.g. an invalid value, still reach the caller before the response starts), the rest
 * flow as yazl reads them. An error later destroys the zip's output stream.
 */
export async function streamIntoZip(zip: ZipFile, chunks: AsyncGenerator<string>, name: string): Promise<void> {
  const first = await chunks.next();
  async function* buffers(): AsyncGenerator<Buffer> {
    if (!first.done) yield Buffer.from(first.value, 'utf8');
    for await (const c of chunks) yield Buffer.from(c, 'utf8');
  }
  zip.on('error', (err: Error) => (zip.outputStream as unknown as Readable).destroy(err));
  zip.addReadStream(Readable.from(buffers()), name);
}
