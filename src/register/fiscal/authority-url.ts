/**
 * Where a tax authority (or an e-invoice delivery system) may be reached: HTTPS, or plain HTTP to this machine
 * only (a test double such as the tests' fake CIS and fake FURS). A signed receipt never travels in clear over a network, and an answer
 * over plain HTTP from elsewhere is never taken for the authority's.
 */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** The URL of attribute `attribute` (Fiscal_Url, or the e-invoice delivery system's eDoc_Url) when it may be used. */
export function checkAuthorityUrl(url: string, attribute = 'Fiscal_Url'): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`the address "${url}" (${attribute}) is no URL`);
  }
  if (parsed.protocol === 'https:') return parsed;
  if (parsed.protocol === 'http:' && LOOPBACK.has(parsed.hostname)) return parsed;
  throw new Error(`the address ${parsed.origin} (${attribute}) must use https (plain http only to this machine)`);
}
