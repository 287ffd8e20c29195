/**
 * Where an e-invoice is delivered: the API of the service provider (or Peppol access point) named by the
 * register's profile attributes, per destination (ESR.DD as journaled), production or test system.
 *
 * - `eDoc_Url_<DD>`: the endpoint for that DD as journaled (`eDoc_Url_DE`, `eDoc_Url_PEPPOL`, `eDoc_Url_NL-TEST`);
 * - `eDoc_Url`: the production endpoint of every other destination;
 * - `eDoc_TestUrl`: the test endpoint of every other test destination;
 * - `eDoc_Token_<DD>`, `eDoc_Token`, `eDoc_TestToken`: the bearer token sent with it, chosen the same way
 *   (`eDoc_Token` only to the host of `eDoc_Url`, `eDoc_TestToken` only to that of `eDoc_TestUrl`);
 * - `eDoc_Timeout`: how long the POS waits for the answer, in ms (default 3000).
 *
 * A destination is the test system when its DD has a suffix (`-TEST`, `-DEMO`), when the transaction is a
 * test (ESR.Test 1, training) or when the instance is a test system (EFR_testCloud, or Fiscal_Test: the register
 * reports to the tax authority's test system); a test is looked up as
 * `eDoc_Url_<DD>-TEST` (or with its own suffix), then `eDoc_TestUrl`, and never falls back to a production
 * endpoint. docs/einvoicing.md, Delivery.
 */
import { FiscalError } from '../../shared/errors.js';
import type { AttributeMap } from '../profile/attributes.js';
import { checkAuthorityUrl } from '../fiscal/authority-url.js';

/** eDoc_Timeout when the profile does not set it. */
const DEFAULT_TIMEOUT_MS = 3000;

export interface Endpoint {
  url: string;
  /** the attribute it was read from, as written in docs (eDoc_Url_NL-TEST) */
  attribute: string;
  token?: string;
  test: boolean;
}

/** No endpoint for the destination: the attributes that would name one, for the warning. */
export interface NoEndpoint {
  missing: string[];
  test: boolean;
}

/** The DD under which a transaction is looked up: as journaled; a test without a suffix gets `-TEST`. */
export function deliveryKey(dd: string, test: boolean): { key: string; test: boolean } {
  const upper = dd.trim().toUpperCase();
  const suffixed = upper.includes('-');
  if (suffixed) return { key: upper, test: true };
  return test ? { key: `${upper}-TEST`, test: true } : { key: upper, test: false };
}

/** Whether flag attribute `name` (lower case) is set: present, and not an explicit false, 0, no or off. */
function flagSet(attributes: AttributeMap, name: string): boolean {
  return attributes.has(name) && !['false', '0', 'no', 'off'].includes((attributes.get(name) ?? '').toLowerCase());
}

/** The origin of a URL, '' when it is none. */
function originOf(url: string | undefined): string {
  try {
    return url === undefined ? '' : new URL(url).origin;
  } catch {
    return '';
  }
}

/**
 * The endpoint of a DD for a transaction (test: ESR.Test, training, or an instance that is a test system:
 * EFR_testCloud, or a register reporting to the tax authority's test system, Fiscal_Test, whose invoices are
 * no real ones). The token of eDoc_Url (eDoc_TestUrl) is sent to its own host only: an eDoc_Url_<DD> elsewhere
 * (another provider, an adapter) gets its eDoc_Token_<DD> or none.
 */
export function endpointOf(attributes: AttributeMap, dd: string, testTransaction: boolean): Endpoint | NoEndpoint {
  const testInstance = flagSet(attributes, 'efr_testcloud') || flagSet(attributes, 'fiscal_test');
  const { key, test } = deliveryKey(dd, testTransaction || testInstance);
  const own = `eDoc_Url_${key}`;
  const general = test ? 'eDoc_TestUrl' : 'eDoc_Url';
  const generalUrl = attributes.get(general.toLowerCase());
  const url = attributes.get(own.toLowerCase()) ?? generalUrl;
  if (url === undefined || url === 'true') return { missing: [own, general], test };
  const attribute = attributes.has(own.toLowerCase()) ? own : general;
  const generalToken = originOf(url) !== '' && originOf(url) === originOf(generalUrl) ? attributes.get(test ? 'edoc_testtoken' : 'edoc_token') : undefined;
  const token = attributes.get(`edoc_token_${key}`.toLowerCase()) ?? generalToken;
  return { url, attribute, test, ...(token !== undefined && token !== 'true' ? { token } : {}) };
}

/** Whether the register names any delivery endpoint at all (then its journal is scanned for e-invoices waiting). */
export function deliveryConfigured(attributes: AttributeMap): boolean {
  for (const name of attributes.keys()) if (name === 'edoc_url' || name === 'edoc_testurl' || name.startsWith('edoc_url_')) return true;
  return false;
}

/** How long the POS waits for the delivery system (eDoc_Timeout, ms, at least 100). */
export function deliveryTimeoutOf(attributes: AttributeMap): number {
  const v = attributes.get('edoc_timeout');
  const n = v !== undefined && /^\d{1,7}$/.test(v) ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 100 ? n : DEFAULT_TIMEOUT_MS;
}

/**
 * The URL of an endpoint when it may be used: https (plain http only to this machine) and without a user or
 * password in it (credentials are the token's: a URL is named in errors and warnings, a token never).
 */
export function checkEndpointUrl(value: string, attribute: string): URL {
  const url = checkAuthorityUrl(value, attribute);
  if (url.username !== '' || url.password !== '') throw new Error(`the address ${url.origin} (${attribute}) carries credentials: give them as the token (eDoc_Token)`);
  return url;
}

/** Refuses (POST /profile) an endpoint that is no https URL (plain http only to this machine) and a timeout that is no number. */
export function checkEinvoiceAttributes(attrs: AttributeMap): void {
  for (const [name, value] of attrs) {
    if (name === 'edoc_url' || name === 'edoc_testurl' || name.startsWith('edoc_url_')) {
      try {
        checkEndpointUrl(value, name);
      } catch (e) {
        // the refusal is answered and logged: a password in the URL is not repeated in it
        const shown = value.replace(/(\/\/[^/@:\s]*:)[^/@\s]*@/g, '$1********@');
        throw new FiscalError('#INVALID_TYPE', { field: `Attributes.${name}`, expected: `the delivery system's URL: https (plain http only to this machine): ${e instanceof Error ? e.message : String(e)}`, value: shown });
      }
    }
  }
  const timeout = attrs.get('edoc_timeout');
  if (timeout !== undefined && !(/^\d{1,7}$/.test(timeout) && Number(timeout) >= 100)) {
    throw new FiscalError('#INVALID_TYPE', { field: 'Attributes.eDoc_Timeout', expected: 'a whole number of milliseconds, at least 100', value: timeout });
  }
}
