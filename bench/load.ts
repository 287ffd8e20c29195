// One autocannon run of POST /register with a random pool receipt per request.
import autocannon from 'autocannon';
import type { PoolReceipt } from './receipts.js';

export interface LoadResult {
  /** 2xx answers per second of run time (durable registrations per second) */
  reqPerSec: number;
  /** latency percentiles of 2xx answers in ms, exact (autocannon's own histogram rounds to whole ms) */
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  /** connection errors and timeouts */
  errors: number;
  seconds: number;
  statusCodes: Record<string, number>;
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

export async function runLoad(baseUrl: string, pool: readonly PoolReceipt[], connections: number, seconds: number): Promise<LoadResult> {
  const latencies: number[] = [];
  const instance = autocannon({
    url: baseUrl,
    connections,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        path: '/register',
        setupRequest: (req) => {
          const r = pool[Math.floor(Math.random() * pool.length)];
          if (r === undefined) throw new Error('empty receipt pool');
          return { ...req, method: 'POST', path: '/register', body: r.body, headers: { ...req.headers, 'Content-Type': r.contentType } };
        },
      },
    ],
  });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
  const result = await instance;
  const sorted = Float64Array.from(latencies).sort();
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats)) statusCodes[code] = stat.count;
  const ok = result['2xx'];
  return {
    reqPerSec: result.duration > 0 ? ok / result.duration : 0,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    seconds: result.duration,
    statusCodes,
  };
}

export function median(values: readonly number[]): number {
  const s = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  const hi = s[mid] ?? Number.NaN;
  return s.length % 2 === 1 ? hi : ((s[mid - 1] ?? hi) + hi) / 2;
}
