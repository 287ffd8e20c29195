/** Reads a TAR (a TSE export) into its files by name; a file that is not a TAR gives a clear error. */
import { createReadStream } from 'node:fs';
import { extract } from 'tar-stream';

export async function readTar(path: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const ex = extract();
  const input = createReadStream(path);
  input.on('error', (e) => ex.destroy(e));
  input.pipe(ex);
  try {
    for await (const entry of ex) {
      const chunks: Buffer[] = [];
      for await (const c of entry) chunks.push(c as Buffer);
      // a folder inside the TAR (some TSEs' exports have one) does not change what a file is
      if (entry.header.type === 'file') files.set(entry.header.name.replace(/^(\.\/)+/, ''), Buffer.concat(chunks));
    }
  } catch (e) {
    throw new Error(`${path} is not a readable TAR: ${e instanceof Error ? e.message : String(e)}`);
  }
  return files;
}
