/**
 * `GET /export?target=<folder>`: the export file is also written into a folder of the service's machine
 * (spec: `target` (folder)). The folder is named by its absolute path on this machine and must exist; a
 * network path is refused (the service would write as itself onto another machine), and so is any target
 * in cloud mode (the machine is the provider's, not the tenant's). The file is written under a temporary
 * name, flushed and renamed into place, so the folder never holds half an export; a file of the same name
 * is replaced.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import { FiscalError } from '../../shared/errors.js';
import { writeFileAtomic, writeStreamAtomic } from '../../shared/files.js';
import type { ServiceContext } from '../context.js';
import type { ExportFile } from '../fiscal/module.js';

const invalid = (target: string, why: string): FiscalError => new FiscalError('#INVALID_VALUE', { field: 'target', detail: `${why}, got "${target}"` });

/** The real path of the existing folder `target` names; #INVALID_VALUE (field target) naming why not. */
export function targetFolder(ctx: ServiceContext, target: string): string {
  if (ctx.cloud) throw invalid(target, 'writing the export into a folder is not available in cloud mode: the file is the response');
  if (target.trim() === '' || target.includes('\0')) throw invalid(target, 'the absolute path of a folder on this machine');
  if (/^[\\/]{2}/.test(target)) throw invalid(target, 'a folder on this machine, not a network path');
  if (!isAbsolute(target)) throw invalid(target, 'the absolute path of a folder on this machine');
  if (!existsSync(target)) throw invalid(target, 'a folder that exists on this machine');
  const real = realpathSync(target);
  if (!statSync(real).isDirectory()) throw invalid(target, 'a folder, not a file');
  return real;
}

/** What keeps a file from being written into a folder: the folder's, not the service's (a full disk stays #DISK_FULL). */
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'EISDIR', 'ENOTDIR', 'ENOTEMPTY', 'EEXIST']);

/** Writes the export into `folder` (from targetFolder, for `target`) atomically; the path of the written file. */
export async function writeExportInto(folder: string, file: ExportFile, target: string = folder): Promise<string> {
  // the name is the service's own, yet only a name: the file stays in the folder asked for
  const name = basename(file.file);
  const path = join(folder, name);
  try {
    if (Buffer.isBuffer(file.body)) writeFileAtomic(path, file.body);
    else await writeStreamAtomic(path, file.body);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== undefined && UNWRITABLE.has(code)) throw invalid(target, `a folder this service can write ${name} into (${code})`);
    throw e;
  }
  return path;
}
