/**
 * Files a reader sees whole or not at all: written under a temporary name, flushed to the disk,
 * then renamed; the folder is flushed so that the rename survives a power loss.
 */
import { open, rename } from 'node:fs/promises';

/** Writes `data` to `tmp` (replacing it) and flushes it; the caller renames it when the time has come. */
export async function writeFlushed(tmp: string, data: string | Buffer, sync: boolean): Promise<void> {
  const file = await open(tmp, 'w');
  try {
    await file.writeFile(data);
    if (sync) await file.sync();
  } finally {
    await file.close();
  }
}

/** Flushes a folder's entries (renames, removals). Where a folder cannot be opened for that (Windows), nothing. */
export async function syncFolder(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // EISDIR/EPERM on Windows, EINVAL on some network file systems: their renames are as durable as they get
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** `writeFlushed` then the rename onto `path`. */
export async function writeDurably(path: string, tmp: string, data: string | Buffer, sync: boolean): Promise<void> {
  await writeFlushed(tmp, data, sync);
  await rename(tmp, path);
}
