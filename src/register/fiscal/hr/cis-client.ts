/**
 * Sends one SOAP request to the CIS and returns the answer's text. HTTPS with the fiscal certificate as the TLS
 * client certificate (undici Agent), plain HTTP only for a Fiscal_Url on this machine (the tests' fake CIS;
 * authority-url.ts).
 * The CIS answers errors with HTTP 500 and a RacunOdgovor, so the body is read whatever the status; a body that
 * is not XML, a network failure or the abort signal throws.
 */
import { Agent, fetch } from 'undici';
import { checkAuthorityUrl } from '../authority-url.js';
import type { AuthorityCertificate } from '../authority.js';
import { SOAP_ACTION_RACUNI } from './request-xml.js';

const agents = new Map<string, Agent>();

/** One keep-alive agent per certificate (its serial number and key), so TLS sessions are reused. */
function agentFor(cert: AuthorityCertificate): Agent {
  const key = `${cert.issuer}\n${cert.serial}\n${cert.keyPem.length}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({ connect: { key: cert.keyPem, cert: cert.certPem } });
    agents.set(key, agent);
  }
  return agent;
}

export async function postToCis(url: string, xml: string, cert: AuthorityCertificate, signal: AbortSignal): Promise<string> {
  const https = checkAuthorityUrl(url).protocol === 'https:';
  const res = await fetch(url, {
    method: 'POST',
    body: xml,
    headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${SOAP_ACTION_RACUNI}"` },
    signal,
    ...(https ? { dispatcher: agentFor(cert) } : {}),
  });
  const text = await res.text();
  if (!text.trim().startsWith('<')) throw new Error(`CIS answered HTTP ${res.status} without XML`);
  return text;
}

/** Closes the TLS agents (service close). */
export async function closeCisAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((a) => a.close()));
}
