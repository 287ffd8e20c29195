/** Reads a TAR (a TSE export) into its files by name; a file that is not a TAR gives a clear error. */
import { createReadStream } from 'node:fs';
import { extract } from 'tar-stream';

/**
 * The largest file read from a TAR. A TSE export holds log messages, certificates and info.csv, each a few
 * kilobytes; a TAR whose header claims more (gigabytes, from a broken or hostile file) is refused before
 * its content is buffered, rather than filling the verifier's memory until the process dies.
 */
export const MAX_TAR_ENTRY = 16 * 1024 * 1024;

export async function readTar(path: string, maxEntry = MAX_TAR_ENTRY): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const ex = extract();
  const input = createReadStream(path);
  input.on('error', (e) => ex.destroy(e));
  input.pipe(ex);
  try {
    for await (const entry of ex) {
      const size = entry.header.size ?? 0;
      if (size > maxEntry) throw new Error(`${entry.header.name} is ${size} bytes, more than any file of a TSE export (${maxEntry})`);
      const chunks: Buffer[] = [];
      for await (const c of entry) chunks.push(c as Buffer);
      // a folder inside the TAR (some TSEs' exports have one) does not change what a file is
      if (entry.header.type === 'file') files.set(entry.header.name.replace(/^(\.\/)+/, ''), Buffer.concat(chunks));
    }
  } catch (e) {
    input.destroy();
    throw new Error(`${path} is not a readable TAR: ${e instanceof Error ? e.message : String(e)}`);
  }
  return files;
}
