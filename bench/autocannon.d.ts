// Minimal typings for the part of autocannon 8 that the bench uses (the package ships none).
declare module 'autocannon' {
  export interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }

  export interface Request extends RequestParams {
    /** Returns the request to send; a falsy value restarts the request sequence. */
    setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams | null | undefined;
  }

  export interface Options {
    url: string;
    connections?: number;
    /** seconds */
    duration?: number;
    pipelining?: number;
    /** seconds */
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    requests?: Request[];
    title?: string;
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total?: number;
    p50: number;
    p90: number;
    p99: number;
  }

  export interface Result {
    title?: string;
    url: string;
    /** seconds */
    duration: number;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    resets: number;
    '1xx': number;
    '2xx': number;
    '3xx': number;
    '4xx': number;
    '5xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }

  export interface Instance extends PromiseLike<Result> {
    stop(): void;
    /** responseTime in milliseconds (fractional) */
    on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): Instance;
    on(event: 'reqError', listener: (error: Error) => void): Instance;
    on(event: 'done', listener: (result: Result) => void): Instance;
  }

  /** The package is CommonJS; an ESM default import is its module.exports, this function. */
  export default function autocannon(options: Options): Instance;
}
