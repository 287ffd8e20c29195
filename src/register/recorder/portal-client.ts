/** HTTP calls of the recorder to the portal: JSON, a timeout, through the profile's Proxy when one is set. */
import type { Dispatcher, ProxyAgent } from 'undici';
import { undiciModule } from '../../shared/lazy-modules.js';

export interface PortalAnswer {
  status: number;
  body: Record<string, unknown>;
}

const agents = new Map<string, ProxyAgent>();

function dispatcherOf(proxy: string | undefined): Dispatcher | undefined {
  if (!proxy) return undefined;
  let agent = agents.get(proxy);
  if (!agent) {
    agent = new (undiciModule().ProxyAgent)(proxy);
    agents.set(proxy, agent);
  }
  return agent;
}

/** Closes the proxy agents (service close). */
export async function closeProxyAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((a) => a.close().catch(() => undefined)));
}

/** POSTs JSON; a network failure or timeout rejects (the caller retries), any HTTP answer resolves. */
export async function postJson(url: string, body: unknown, options: { token?: string; proxy?: string; timeoutMs?: number } = {}): Promise<PortalAnswer> {
  const dispatcher = dispatcherOf(options.proxy);
  const timeout = options.timeoutMs ?? 10_000;
  const res = await undiciModule().request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
    body: JSON.stringify(body),
    headersTimeout: timeout,
    bodyTimeout: timeout,
    ...(dispatcher ? { dispatcher } : {}),
  });
  const text = await res.body.text();
  let parsed: Record<string, unknown> = {};
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) parsed = v as Record<string, unknown>;
  } catch {
    parsed = { errorMessage: text.slice(0, 200) };
  }
  return { status: res.statusCode, body: parsed };
}
