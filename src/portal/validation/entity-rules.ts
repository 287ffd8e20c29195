/** Checks beyond the JSON schemas: ISO country codes, the characters of a locationIdentification, language codes. */
import countries from 'i18n-iso-countries';
import type { Issues } from '../envelope.js';

export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && countries.isValid(code);
}

/** Adds an issue when a given country code is not ISO 3166-1 alpha-2 (upper case, as listed). */
export function checkCountryCode(issues: Issues, field: string, code: string | null | undefined): void {
  if (code === null || code === undefined || issues.has(field)) return;
  if (!isCountryCode(code)) issues.add(field, 'countryCode');
}

export const LOCATION_ID_PATTERN = /^[A-Za-z0-9\-+<>#.,=]+$/;

export function checkLocationIdentification(issues: Issues, value: string): void {
  if (issues.has('locationIdentification')) return;
  if (!LOCATION_ID_PATTERN.test(value)) issues.add('locationIdentification', 'locationIdentification');
}

export const LANGUAGE_CODE_PATTERN = /^[A-Za-z]{2}(?:[-_][A-Za-z]{2})?$/;
