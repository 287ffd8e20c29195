/** readTar on TARs that are broken or hostile: a file larger than a TSE export's files is refused before it is buffered. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTar } from './tar.js';
import { tarBytes } from './tse-tar.testing.js';

const dir = mkdtempSync(join(tmpdir(), 'de-tar-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** A ustar header for a regular file whose size field says `octalSize`. */
function header(name: string, octalSize: string): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0);
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${octalSize}\0`, 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write('0', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

test('a file whose header claims gigabytes is refused by its name and size', async () => {
  const path = join(dir, 'huge.tar');
  writeFileSync(path, Buffer.concat([header('Unixt_1_Sig-1_Log-Aud.log', '77777777777'), Buffer.alloc(4096, 0x30)]));
  await assert.rejects(readTar(path), /not a readable TAR: Unixt_1_Sig-1_Log-Aud\.log is 8589934591 bytes, more than any file of a TSE export/);
});

test('a file above the limit is refused, the files within it are read', async () => {
  const path = join(dir, 'big.tar');
  writeFileSync(path, await tarBytes([['info.csv', Buffer.alloc(100, 0x41)], ['big.log', Buffer.alloc(3000, 0x42)]]));
  await assert.rejects(readTar(path, 2048), /big\.log is 3000 bytes/);
  const files = await readTar(path, 4096);
  assert.deepEqual([...files].map(([n, b]) => [n, b.length]), [['info.csv', 100], ['big.log', 3000]]);
});
