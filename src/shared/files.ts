/** Files the service writes once and must never find half-written: keys, certificates. */
import { renameSync, writeFileSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';

/** Writes to a temporary file, flushes it to disk, then renames it into place. */
export function writeFileAtomic(file: string, data: string | Buffer, mode = 0o644): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode, flush: true });
  renameSync(tmp, file);
}

/** An EC public key as the uncompressed point 04 ‖ X ‖ Y. */
export function uncompressedPoint(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  return Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x ?? '', 'base64url'), Buffer.from(jwk.y ?? '', 'base64url')]);
}
