/**
 * Sends one SOAP request to a tax authority that identifies the sender by its TLS client certificate
 * (Croatia's CIS, Slovakia's eKasa) and returns the answer's text: HTTPS with the register's fiscal
 * certificate (undici Agent, one keep-alive agent per certificate so that TLS sessions are reused), plain HTTP
 * only for a Fiscal_Url on this machine (the tests' fakes; authority-url.ts). SOAP faults come with HTTP 500,
 * so the body is read whatever the status; a body that is not XML, a network failure or the abort signal throws.
 */
import type { Agent } from 'undici';
import { undiciModule } from '../../shared/lazy-modules.js';
import { checkAuthorityUrl } from './authority-url.js';
import type { AuthorityCertificate } from './authority.js';

const agents = new Map<string, Agent>();

function agentFor(cert: AuthorityCertificate): Agent {
  const key = `${cert.issuer}\n${cert.serial}\n${cert.keyPem.length}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new (undiciModule().Agent)({ connect: { key: cert.keyPem, cert: cert.certPem } });
    agents.set(key, agent);
  }
  return agent;
}

/** @param authority the authority's name in the error of an answer that is no XML */
export async function postSoap(url: string, xml: string, cert: AuthorityCertificate, signal: AbortSignal, soapAction: string, authority: string): Promise<string> {
  const https = checkAuthorityUrl(url).protocol === 'https:';
  const res = await undiciModule().fetch(url, {
    method: 'POST',
    body: xml,
    headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${soapAction}"` },
    signal,
    ...(https ? { dispatcher: agentFor(cert) } : {}),
  });
  const text = await res.text();
  if (!text.trim().startsWith('<')) throw new Error(`${authority} answered HTTP ${res.status} without XML`);
  return text;
}

/** Closes the TLS agents (service close). */
export async function closeSoapAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((a) => a.close()));
}
