/** Files the service writes once and must never find half-written: keys, certificates, backups. */
import { closeSync, createWriteStream, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rm, rename, writeFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { type KeyObject, randomBytes } from 'node:crypto';

/** A temporary name beside `file`, its own per call: two writers of one file (two exports into one folder) never share it. */
function temporaryOf(file: string): string {
  return `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
}

/** Writes to a temporary file, flushes it to disk, then renames it into place. */
export function writeFileAtomic(file: string, data: string | Buffer, mode = 0o644): void {
  const tmp = temporaryOf(file);
  try {
    writeFileSync(tmp, data, { mode, flush: true });
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** writeFileAtomic off the event loop: for a file written in the request path. */
export async function writeFileAtomicAsync(file: string, data: string | Buffer, mode = 0o644): Promise<void> {
  const tmp = temporaryOf(file);
  try {
    await writeFile(tmp, data, { mode, flush: true });
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/** Writes a stream to a file atomically: into a temporary file, flushed to disk, then renamed. */
export async function writeStreamAtomic(file: string, stream: NodeJS.ReadableStream, mode = 0o644): Promise<void> {
  const tmp = temporaryOf(file);
  try {
    await pipeline(stream, createWriteStream(tmp, { mode }));
    const fd = openSync(tmp, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** An EC public key as the uncompressed point 04 ‖ X ‖ Y. */
export function uncompressedPoint(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  return Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x ?? '', 'base64url'), Buffer.from(jwk.y ?? '', 'base64url')]);
}
