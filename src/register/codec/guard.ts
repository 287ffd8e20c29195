/**
 * Limits every decoded document keeps, whatever its format: a bounded depth, property names that are
 * XML names (so any document can be answered in either format; `__proto__` cannot reach an object's
 * prototype), and text without characters that XML 1.0 cannot carry.
 */
import { FiscalError } from '../../shared/errors.js';
import type { Format } from './model.js';

export const MAX_DEPTH = 32;

const NAME = /^[A-Za-z_][A-Za-z0-9_.:-]*$/;
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
// C0 controls other than tab, line feed and carriage return, and the non-characters U+FFFE/U+FFFF
// eslint-disable-next-line no-control-regex
const BAD_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

const FORMAT: Readonly<Record<Format, string>> = { json: 'JSON', xml: 'XML' };

/** Where the problem is; a function when the path is costly to build and only needed on failure. */
type Path = string | (() => string);
const pathText = (p: Path): string => (typeof p === 'function' ? p() : p);

export function checkName(name: string, format: Format, path: Path): void {
  if (!NAME.test(name) || FORBIDDEN_NAMES.has(name)) {
    throw new FiscalError('#MALFORMED', { format: FORMAT[format], detail: `property name "${name.slice(0, 40)}" at ${pathText(path) || 'the root'} is not allowed` });
  }
}

export function checkText(text: string, format: Format, path: Path): void {
  if (BAD_TEXT.test(text)) {
    throw new FiscalError('#MALFORMED', { format: FORMAT[format], detail: `${pathText(path)} contains a control character` });
  }
}

export function checkDepth(depth: number, format: Format, path: Path): void {
  if (depth > MAX_DEPTH) {
    throw new FiscalError('#MALFORMED', { format: FORMAT[format], detail: `${pathText(path)} is nested deeper than ${MAX_DEPTH} levels` });
  }
}
