/** Helpers for the unit tests beside the code (not part of the build). */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FiscalError } from './errors.js';

/** Runs fn and returns the FiscalError it throws; fails the test when it throws nothing. */
export function fiscalError(fn: () => unknown): FiscalError {
  try {
    fn();
  } catch (e) {
    if (e instanceof FiscalError) return e;
    throw e;
  }
  return assert.fail('expected a FiscalError');
}

/**
 * A path inside test/vectors, the public test vectors the repository carries (official schemas, sample files
 * and scenarios, each set with its source and licence in its README), so that a clone runs its tests alone.
 */
export function vectorPath(...parts: string[]): string {
  return join(fileURLToPath(new URL('../../test/vectors', import.meta.url)), ...parts);
}
