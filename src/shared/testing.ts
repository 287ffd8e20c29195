/** Helpers for the unit tests beside the code (not part of the build). */
import assert from 'node:assert/strict';
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
