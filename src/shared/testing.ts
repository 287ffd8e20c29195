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
 * The public test vectors (`shared/testdata`, beside the repository as in CI), or the folder EFR_TESTDATA
 * names (.ci/run sets it for a clone made elsewhere).
 */
export function testdataDir(...parts: string[]): string {
  const root = process.env.EFR_TESTDATA || join(fileURLToPath(new URL('../../..', import.meta.url)), 'shared', 'testdata');
  return join(root, ...parts);
}
