/**
 * The custom layouts of a register: template files under `<dataDir>/layouts/<RN>/<name>.<pug|ejs>`.
 *
 * A name identifies one layout of a register whatever its type (`fiscal.pug` and `fiscal.ejs` cannot
 * both exist), so that "the layout fiscal" always means one file. Files are written atomically; the
 * folder is the only state (no index to keep in step), so a layout copied into the folder by hand
 * counts as well.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FiscalError } from '../../shared/errors.js';
import { writeFileAtomic } from '../../shared/files.js';
import type { TemplateKind } from './template-sandbox.js';

export interface Layout {
  /** file name without extension */
  name: string;
  kind: TemplateKind;
  source: string;
}

/** One stored layout file, as GET /peri/layout lists it. */
export interface LayoutFile {
  name: string;
  kind: TemplateKind;
  /** path relative to the data folder, with `/` (the spec's paths are relative to the data folder) */
  filePath: string;
  /** absolute path on this machine */
  path: string;
  /** last upload (modification time), for the choice of the active layout */
  mtimeMs: number;
}

/** The largest layout file accepted (a receipt template is a few KiB). */
export const MAX_LAYOUT_BYTES = 256 * 1024;

/** The name a default receipt template has; a custom layout of that name is the one used. */
export const PREFERRED_LAYOUT = 'fiscal';

const NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/;
const EXTENSION: Readonly<Record<string, TemplateKind>> = { '.pug': 'pug', '.ejs': 'ejs' };

/** Checks a layout name (without extension): letters, digits, `-`, `_`, `.`; no path, no leading dot. */
export function checkLayoutName(name: string, field = 'name'): string {
  if (!NAME.test(name) || name.includes('..')) {
    throw new FiscalError('#INVALID_VALUE', { field, detail: `"${name}" is not a layout name: up to 100 letters, digits, "-", "_" and "." (not first, not two in a row)` });
  }
  return name;
}

/** `name.pug` / `name.ejs` (an upload's file name) to its name and type; a path part is refused, not stripped. */
export function parseLayoutFileName(fileName: string): { name: string; kind: TemplateKind } {
  const dot = fileName.lastIndexOf('.');
  const kind = dot > 0 ? EXTENSION[fileName.slice(dot).toLowerCase()] : undefined;
  if (!kind) throw new FiscalError('#INVALID_VALUE', { field: 'file', detail: `"${fileName}" is not a .pug or .ejs file` });
  return { name: checkLayoutName(fileName.slice(0, dot), 'file'), kind };
}

/** A register number as one folder name: letters, digits, `-` and `_` stay, anything else (`$`, `.`, `/`) becomes %XX. */
export function rnFolder(rn: string): string {
  if (rn === '' || rn.length > 200) throw new FiscalError('#INVALID_VALUE', { field: 'RN', detail: 'must have 1 to 200 characters' });
  return Array.from(Buffer.from(rn, 'utf8'))
    .map((b) => (/[A-Za-z0-9_-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
}

function folderOf(dataDir: string, rn: string): string {
  return join(dataDir, 'layouts', rnFolder(rn));
}

/** All layouts of a register, by name. */
export function listLayouts(dataDir: string, rn: string): LayoutFile[] {
  const folder = folderOf(dataDir, rn);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const out: LayoutFile[] = [];
  for (const file of names.sort()) {
    const dot = file.lastIndexOf('.');
    const kind = dot > 0 ? EXTENSION[file.slice(dot)] : undefined;
    const name = file.slice(0, dot);
    if (!kind || !NAME.test(name)) continue; // temporary files of a write in progress, anything else
    const path = join(folder, file);
    let mtimeMs: number;
    try {
      const st = statSync(path);
      if (!st.isFile()) continue;
      mtimeMs = st.mtimeMs;
    } catch {
      continue; // deleted meanwhile
    }
    out.push({ name, kind, filePath: `layouts/${rnFolder(rn)}/${file}`, path, mtimeMs });
  }
  return out;
}

/** The layout of that name (and type, when given), or undefined. */
export function findLayout(dataDir: string, rn: string, name: string, kind?: TemplateKind): LayoutFile | undefined {
  checkLayoutName(name);
  return listLayouts(dataDir, rn).find((l) => l.name === name && (kind === undefined || l.kind === kind));
}

/**
 * Writes a layout. `create`: 409 #FILE_EXISTS when the name is taken; `replace`: 404 #FILE_NOT_FOUND
 * when it is not (a replacement may change the type: the old file goes).
 */
export function saveLayout(dataDir: string, rn: string, name: string, kind: TemplateKind, source: string, mode: 'create' | 'replace'): LayoutFile {
  checkLayoutName(name);
  const existing = listLayouts(dataDir, rn).filter((l) => l.name === name);
  if (mode === 'create' && existing.length) throw new FiscalError('#FILE_EXISTS', { value: `${name} (${rn})` });
  if (mode === 'replace' && !existing.length) throw new FiscalError('#FILE_NOT_FOUND', { value: `${name} (${rn})` });
  const folder = folderOf(dataDir, rn);
  mkdirSync(folder, { recursive: true });
  writeFileAtomic(join(folder, `${name}.${kind}`), source);
  for (const old of existing) if (old.kind !== kind) rmSync(old.path, { force: true });
  const saved = findLayout(dataDir, rn, name, kind);
  if (!saved) throw new FiscalError('#FILE_NOT_FOUND', { value: `${name} (${rn})` });
  return saved;
}

/** Deletes the layout of that name (of that type, when given); 404 #FILE_NOT_FOUND when there is none. */
export function deleteLayout(dataDir: string, rn: string, name: string, kind?: TemplateKind): LayoutFile[] {
  checkLayoutName(name);
  const gone = listLayouts(dataDir, rn).filter((l) => l.name === name && (kind === undefined || l.kind === kind));
  if (!gone.length) throw new FiscalError('#FILE_NOT_FOUND', { value: `${name}${kind ? `.${kind}` : ''} (${rn})` });
  for (const l of gone) rmSync(l.path, { force: true });
  return gone;
}

/**
 * The layout that replaces the default template for this RN, if any: the one named `fiscal` (the
 * default template's name), else the most recently uploaded one (ties: the first by name).
 */
export function activeLayout(dataDir: string, rn: string): Promise<Layout | undefined> {
  let all: LayoutFile[];
  try {
    all = listLayouts(dataDir, rn);
  } catch {
    return Promise.resolve(undefined); // an RN that cannot have layouts (too long) has none
  }
  const chosen = all.find((l) => l.name === PREFERRED_LAYOUT) ?? [...all].sort((a, b) => b.mtimeMs - a.mtimeMs || a.name.localeCompare(b.name))[0];
  if (!chosen) return Promise.resolve(undefined);
  try {
    return Promise.resolve({ name: chosen.name, kind: chosen.kind, source: readFileSync(chosen.path, 'utf8') });
  } catch {
    return Promise.resolve(undefined); // deleted between the listing and the read
  }
}
