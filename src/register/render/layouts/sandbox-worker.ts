/**
 * Runs compiled template scripts in a worker thread, called synchronously from the service's thread.
 *
 * Why a worker and not node:vm on the service's thread alone: a vm context shares the isolate with the
 * service, so a template's rejected promise (`Promise.reject()`, an `async` function that throws,
 * `import()`) reaches the service's `unhandledRejection` (by default a crash), and a template that
 * allocates without end takes the service's heap with it. In the worker, rejections are dropped, the
 * heap is limited (`resourceLimits`), and a worker that dies or hangs is terminated and replaced.
 * Inside the worker each render still gets a fresh vm context without code generation (see
 * template-sandbox.ts), so the template sees no `require`, `process` or worker API either.
 *
 * Synchronous call: the request goes over a MessageChannel, the caller sleeps in `Atomics.wait` on a
 * shared flag that the worker raises when its answer is posted, then takes it with
 * `receiveMessageOnPort`. The render helpers call `renderTemplate` synchronously, and a render takes
 * milliseconds; the thread is blocked no longer than the vm timeout allowed it before.
 */
import { MessageChannel, type MessagePort, Worker, receiveMessageOnPort } from 'node:worker_threads';

/** How much longer than the template's own timeout the caller waits before it gives the worker up. */
const GRACE_MS = 2000;

/** The heap of the worker: receipts are small, a template that needs more is a mistake or an attack. */
const HEAP_MB = 96;

export type WorkerOutcome =
  | { kind: 'done'; out: string }
  | { kind: 'timeout' }
  | { kind: 'failed'; detail: string };

interface Request {
  id: number;
  key: string;
  source: string;
  filename: string;
  json: string;
  timeoutMs: number;
}

interface Answer {
  id: number;
  out?: string;
  timeout?: boolean;
  failed?: string;
}

/** The worker's program (CommonJS, run with `eval: true` so the compiled service needs no extra file). */
const WORKER_SOURCE = `
'use strict';
const { workerData } = require('node:worker_threads');
const vm = require('node:vm');
// a template's rejected promise is its own affair; the render's answer is already decided
process.on('unhandledRejection', () => {});
const flag = new Int32Array(workerData.shared);
const port = workerData.port;
const scripts = new Map();
port.on('message', (req) => {
  let answer;
  try {
    let script = scripts.get(req.key);
    if (!script) {
      script = new vm.Script(req.source, { filename: req.filename });
      scripts.set(req.key, script);
      if (scripts.size > 200) scripts.delete(scripts.keys().next().value);
    }
    const sandbox = Object.create(null);
    sandbox.__efrLocals = req.json;
    const context = vm.createContext(sandbox, { codeGeneration: { strings: false, wasm: false }, microtaskMode: 'afterEvaluate' });
    const out = script.runInContext(context, { timeout: req.timeoutMs, breakOnSigint: false, displayErrors: false });
    answer = typeof out === 'string' ? { id: req.id, out } : { id: req.id, failed: 'the template did not produce text' };
  } catch (e) {
    answer = e && e.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT' ? { id: req.id, timeout: true } : { id: req.id, failed: 'the template could not be run' };
  }
  port.postMessage(answer);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});
`;

interface Running {
  worker: Worker;
  port: MessagePort;
  flag: Int32Array;
}

let running: Running | undefined;
let nextId = 1;

function start(): Running {
  const shared = new SharedArrayBuffer(4);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { shared, port: port2 },
    transferList: [port2],
    resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: 16 },
    // the worker needs nothing of the service's environment
    env: {},
    execArgv: [],
  });
  worker.unref();
  port1.unref();
  const r: Running = { worker, port: port1, flag: new Int32Array(shared) };
  worker.on('error', () => stop(r));
  worker.on('exit', () => stop(r));
  return r;
}

function stop(r: Running): void {
  if (running === r) running = undefined;
  r.port.close();
  void r.worker.terminate();
}

/** Runs `source` (a script whose value is the render's answer) with the locals' JSON text. */
export function runInWorker(key: string, source: string, filename: string, json: string, timeoutMs: number): WorkerOutcome {
  const r = running ?? (running = start());
  const id = nextId++;
  const req: Request = { id, key, source, filename, json, timeoutMs };
  r.port.postMessage(req);
  const deadline = Date.now() + timeoutMs + GRACE_MS;
  for (;;) {
    // lowered before the port is read: an answer posted after the read raises it again, so no wake-up is lost
    Atomics.store(r.flag, 0, 0);
    for (let m = receiveMessageOnPort(r.port); m !== undefined; m = receiveMessageOnPort(r.port)) {
      const a = m.message as Answer;
      if (a.id !== id) continue; // the late answer of an earlier, abandoned request
      if (a.timeout) return { kind: 'timeout' };
      if (a.failed !== undefined) return { kind: 'failed', detail: a.failed };
      return { kind: 'done', out: a.out ?? '' };
    }
    const left = deadline - Date.now();
    if (left <= 0 || Atomics.wait(r.flag, 0, 0, left) === 'timed-out') {
      // the worker died (heap limit) or hangs: a new one serves the next render
      stop(r);
      return { kind: 'failed', detail: 'the template was stopped (it ran too long or used too much memory)' };
    }
  }
}
