/**
 * Where FURS is reached (technical specification, chapter on the services): the test system
 * https://blagajne-test.fu.gov.si:9002/v1/cash_registers, production https://blagajne.fu.gov.si:9003/v1/cash_registers;
 * invoices are posted to `<base>/invoices`, business premises to `<base>/invoices/register`. The profile
 * attribute Fiscal_Url replaces the base, Fiscal_Test (any value but 0/false/no) selects the test system. FURS authenticates the client
 * by TLS with the fiscal certificate (two-way TLS).
 */
import { checkAuthorityUrl } from '../authority-url.js';
import { readFileSync } from 'node:fs';
import type { Agent, Dispatcher } from 'undici';
import { undiciModule } from '../../../shared/lazy-modules.js';
import type { AuthorityCertificate } from '../authority.js';
import { reportsToTestSystem } from '../certificate-store.js';

export const FURS_TEST_URL = 'https://blagajne-test.fu.gov.si:9002/v1/cash_registers';
export const FURS_PRODUCTION_URL = 'https://blagajne.fu.gov.si:9003/v1/cash_registers';

/** The base URL (without a trailing slash) for the register's profile attributes. */
export function endpointOf(attributes: ReadonlyMap<string, string>): string {
  const own = attributes.get('fiscal_url')?.trim();
  if (own) return own.replace(/\/+$/, '');
  return reportsToTestSystem(attributes) ? FURS_TEST_URL : FURS_PRODUCTION_URL;
}

export const invoiceUrl = (base: string): string => `${base}/invoices`;
export const premiseUrl = (base: string): string => `${base}/invoices/register`;

const agents = new Map<string, Agent>();

/**
 * The TLS client agent of a certificate (cached per certificate and CA file). Fiscal_TlsCa may name a PEM
 * file with the CA of FURS's server certificate when the system's trust store lacks it.
 */
function agentOf(cert: AuthorityCertificate, caFile: string | undefined): Agent {
  const key = `${cert.serial}\n${cert.issuer}\n${caFile ?? ''}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new (undiciModule().Agent)({ connect: { key: cert.keyPem, cert: cert.certPem, ...(caFile ? { ca: readFileSync(caFile, 'utf8') } : {}) } });
    agents.set(key, agent);
  }
  return agent;
}

/** Closes the TLS agents (service close). */
export async function closeFursAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((a) => a.close().catch(() => undefined)));
}

/**
 * POSTs a JSON body; resolves the answer's text whatever its HTTP status (FURS answers refusals with a
 * token too); rejects on a network failure or when the signal aborts.
 */
export async function postJson(url: string, body: string, cert: AuthorityCertificate, attributes: ReadonlyMap<string, string>, signal: AbortSignal): Promise<{ status: number; text: string }> {
  const dispatcher: Dispatcher | undefined = checkAuthorityUrl(url).protocol === 'https:' ? agentOf(cert, attributes.get('fiscal_tlsca')) : undefined;
  const res = await undiciModule().request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=UTF-8' },
    body,
    signal,
    ...(dispatcher ? { dispatcher } : {}),
  });
  return { status: res.statusCode, text: await res.body.text() };
}
