/**
 * Sends one SOAP request to eKasa and returns the answer's text: HTTPS with the authentication certificate as
 * the TLS client certificate (undici Agent), plain HTTP only for a Fiscal_Url on this machine (the tests'
 * fake eKasa; authority-url.ts). The body is read whatever the HTTP status (a SOAP fault comes with 500); a
 * body that is not XML, a network failure or the abort signal throws.
 */
import { Agent, fetch } from 'undici';
import { checkAuthorityUrl } from '../authority-url.js';
import type { AuthorityCertificate } from '../authority.js';

const agents = new Map<string, Agent>();

function agentFor(cert: AuthorityCertificate): Agent {
  const key = `${cert.issuer}\n${cert.serial}\n${cert.keyPem.length}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({ connect: { key: cert.keyPem, cert: cert.certPem } });
    agents.set(key, agent);
  }
  return agent;
}

export async function postToEkasa(url: string, xml: string, cert: AuthorityCertificate, signal: AbortSignal): Promise<string> {
  const https = checkAuthorityUrl(url).protocol === 'https:';
  const res = await fetch(url, {
    method: 'POST',
    body: xml,
    headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '"RegisterReceipt"' },
    signal,
    ...(https ? { dispatcher: agentFor(cert) } : {}),
  });
  const text = await res.text();
  if (!text.trim().startsWith('<')) throw new Error(`eKasa answered HTTP ${res.status} without XML`);
  return text;
}

/** Closes the TLS agents (service close). */
export async function closeEkasaAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((a) => a.close()));
}
