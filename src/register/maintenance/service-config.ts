/**
 * /service/config: the folder GET /backup/incremental writes to when no `path` is given, and the result
 * of the last backup or restore, kept in the store's settings (`service:config`, `backup:last`).
 */
import { isAbsolute, parse as parsePath, resolve } from 'node:path';
import { FiscalError } from '../../shared/errors.js';
import type { JournalStore } from '../journal/types.js';

type Settings = Pick<JournalStore, 'getSetting' | 'putSetting'>;

export interface ServiceConfig {
  /** storage root of GET /backup/incremental (`<path>/<RN>/<nnnn>.zip`) */
  incrementalPath?: string;
}

export interface BackupResult {
  at: string;
  /** backup, incremental, restore */
  action: string;
  rn: string;
  ok: boolean;
  /** the processing information (text) */
  info: string;
}

const CONFIG = 'service:config';
const LAST = 'backup:last';

function parse<T>(text: string | undefined): T | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

export async function serviceConfig(store: Settings): Promise<ServiceConfig> {
  return parse<ServiceConfig>(await store.getSetting(CONFIG)) ?? {};
}

/** Sets the incremental backup path (an absolute folder; empty removes it). */
export async function setIncrementalPath(store: Settings, path: string): Promise<ServiceConfig> {
  const p = path.trim();
  if (p !== '' && !isAbsolute(p)) throw new FiscalError('#INVALID_VALUE', { field: 'path', detail: `an absolute folder path, got "${p}"` });
  if (p !== '' && parsePath(resolve(p)).root === resolve(p)) throw new FiscalError('#INVALID_VALUE', { field: 'path', detail: 'a folder for backups, not the root of the file system' });
  if (p.length > 1000) throw new FiscalError('#INVALID_VALUE', { field: 'path', detail: 'longer than 1000 characters' });
  const config: ServiceConfig = { ...(await serviceConfig(store)) };
  if (p === '') delete config.incrementalPath;
  else config.incrementalPath = p;
  await store.putSetting(CONFIG, JSON.stringify(config));
  return config;
}

export async function lastBackupResult(store: Settings): Promise<BackupResult | undefined> {
  return parse<BackupResult>(await store.getSetting(LAST));
}

export async function noteBackupResult(store: Settings, result: BackupResult): Promise<void> {
  await store.putSetting(LAST, JSON.stringify(result));
}

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** The form page. */
export function serviceConfigPage(config: ServiceConfig, last: BackupResult | undefined, message?: string): string {
  const result = last
    ? `<p>${esc(last.at)}: ${esc(last.action)} of register ${esc(last.rn)}, <strong>${last.ok ? 'OK' : 'failed'}</strong></p><pre>${esc(last.info)}</pre>`
    : '<p>No backup yet.</p>';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>EFR service configuration</title>
<style>body{font-family:sans-serif;margin:2em;max-width:50em}input[type=text]{width:100%}pre{background:#f4f4f4;padding:.5em;white-space:pre-wrap}</style></head>
<body><h1>Service configuration</h1>
${message ? `<p id="message">${esc(message)}</p>` : ''}
<form method="post" action="/service/config">
<label for="path">Incremental backup path (GET /backup/incremental writes &lt;path&gt;/&lt;RN&gt;/&lt;nnnn&gt;.zip)</label>
<input type="text" id="path" name="path" value="${esc(config.incrementalPath ?? '')}" placeholder="/var/backups/efr">
<p><button type="submit">Save</button></p>
</form>
<h2>Last backup</h2>
<div id="last">${result}</div>
</body></html>`;
}
