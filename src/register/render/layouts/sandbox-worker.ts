/**
 * Runs compiled template scripts in worker threads; the service's thread awaits the answer (a Promise
 * settled by the worker's message, by a timer or by the worker's exit) and never blocks on a render.
 *
 * Why a worker and not node:vm on the service's thread alone: a vm context shares the isolate with the
 * service, so a template's rejected promise (`Promise.reject()`, an `async` function that throws,
 * `import()`) reaches the service's `unhandledRejection` (by default a crash), a template that
 * allocates without end takes the service's heap with it, and while a template runs (up to the vm
 * timeout) the service answers nobody. In the worker, rejections are dropped, the heap is limited
 * (`resourceLimits`), and the service's event loop goes on while a template loops.
 * Inside the worker each render still gets a fresh vm context without code generation (see
 * template-sandbox.ts), so the template sees no `require`, `process` or worker API either.
 *
 * Time limits, two of them:
 * - the vm `timeout` inside the worker stops the template's own code and its promise jobs; the worker
 *   answers "timeout";
 * - the deadline here (the vm timeout plus a grace) is the backstop for what the vm timeout cannot
 *   stop (a long native call, a worker that hangs in a task after its previous answer, a worker that
 *   does not start): the caller's Promise is settled with "timeout" at once and the worker is
 *   terminated, whenever its thread lets go.
 * A worker whose template ran into either limit is not used again (whatever the template left behind
 *   in it must not meet the next render): it is terminated and a new one serves the next render.
 *
 * Pool and queue: one render per worker at a time (a worker is one thread; a message posted to a busy
 * worker would wait behind its template), at most POOL_SIZE workers, the other renders wait in a
 * queue in arrival order. A hung template holds one worker for at most its deadline, so a queued render
 * starts within a bounded time; a render that cannot start within MAX_QUEUE_WAIT_MS, or finds
 * MAX_QUEUED renders already waiting, is answered "busy" instead of waiting without end.
 */
import { Worker } from 'node:worker_threads';

/** How much longer than the template's own timeout the service waits before it gives the worker up (covers a worker's start on a loaded machine). */
const GRACE_MS = 2000;

/** The heap of a worker: receipts are small, a template that needs more is a mistake or an attack. */
const HEAP_MB = 96;

/** Two workers: one hung template leaves the other for everybody else; more would only compete for the same cores. */
const POOL_SIZE = 2;

/** A render waits this long at most for a worker; a full round of hung templates (timeout + grace) fits several times. */
const MAX_QUEUE_WAIT_MS = 10_000;

/** Renders waiting for a worker at most; beyond, the service is flooded and a new one is refused at once. */
const MAX_QUEUED = 100;

export type WorkerOutcome =
  | { kind: 'done'; out: string }
  | { kind: 'timeout' }
  | { kind: 'busy'; waitedMs: number }
  | { kind: 'failed'; detail: string };

export interface SandboxJob {
  /** identifies `source` (the worker keeps compiled scripts by it) */
  key: string;
  /** a script whose completion value is the render's answer */
  source: string;
  /** the script's name in stack traces */
  filename: string;
  /** the locals as JSON text, parsed inside the context */
  json: string;
  /** the vm timeout of the render inside the worker */
  timeoutMs: number;
  /** when the worker must have answered, counted from the start of the render (default: timeoutMs + GRACE_MS) */
  deadlineMs?: number;
}

export interface SandboxPoolOptions {
  size?: number;
  maxQueueWaitMs?: number;
  maxQueued?: number;
}

export interface SandboxStats {
  /** workers started since the process started */
  started: number;
  /** workers terminated because a template ran too long or the worker died */
  terminated: number;
  /** renders running in a worker now */
  busy: number;
  /** renders waiting for a worker now */
  queued: number;
}

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
const { parentPort } = require('node:worker_threads');
const vm = require('node:vm');
// a template's rejected promise is its own affair; the render's answer is already decided
process.on('unhandledRejection', () => {});
const scripts = new Map();
parentPort.on('message', (req) => {
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
  parentPort.postMessage(answer);
});
`;

interface Pending {
  id: number;
  request: Request;
  deadlineMs: number;
  queuedAt: number;
  settle: (outcome: WorkerOutcome) => void;
  /** the queue's limit while waiting, the deadline while running */
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker?: Worker;
  job?: Pending;
}

export class SandboxPool {
  private readonly slots: Slot[];
  private readonly queue: Pending[] = [];
  private readonly maxQueueWaitMs: number;
  private readonly maxQueued: number;
  private nextId = 1;
  private started = 0;
  private terminated = 0;

  constructor(options: SandboxPoolOptions = {}) {
    this.slots = Array.from({ length: Math.max(1, options.size ?? POOL_SIZE) }, () => ({}));
    this.maxQueueWaitMs = options.maxQueueWaitMs ?? MAX_QUEUE_WAIT_MS;
    this.maxQueued = options.maxQueued ?? MAX_QUEUED;
  }

  /** Runs a script in a worker; the Promise is always fulfilled (never rejected) with the outcome. */
  run(job: SandboxJob): Promise<WorkerOutcome> {
    return new Promise<WorkerOutcome>((resolve) => {
      if (this.queue.length >= this.maxQueued) {
        resolve({ kind: 'busy', waitedMs: 0 });
        return;
      }
      const id = this.nextId++;
      const { key, source, filename, json, timeoutMs } = job;
      let settled = false;
      const pending: Pending = {
        id,
        request: { id, key, source, filename, json, timeoutMs },
        deadlineMs: job.deadlineMs ?? timeoutMs + GRACE_MS,
        queuedAt: Date.now(),
        settle: (outcome) => {
          if (settled) return;
          settled = true;
          if (pending.timer !== undefined) clearTimeout(pending.timer);
          resolve(outcome);
        },
      };
      pending.timer = setTimeout(() => {
        const at = this.queue.indexOf(pending);
        if (at < 0) return;
        this.queue.splice(at, 1);
        pending.settle({ kind: 'busy', waitedMs: Date.now() - pending.queuedAt });
      }, this.maxQueueWaitMs);
      this.queue.push(pending);
      this.dispatch();
    });
  }

  stats(): SandboxStats {
    return { started: this.started, terminated: this.terminated, busy: this.slots.filter((s) => s.job !== undefined).length, queued: this.queue.length };
  }

  /** Ends every worker; renders still running or waiting are answered "failed". */
  async close(): Promise<void> {
    for (const p of this.queue.splice(0)) p.settle({ kind: 'failed', detail: 'the template sandbox was closed' });
    const ending: Array<Promise<number>> = [];
    for (const slot of this.slots) {
      const { worker, job } = slot;
      slot.worker = undefined;
      slot.job = undefined;
      job?.settle({ kind: 'failed', detail: 'the template sandbox was closed' });
      if (worker) ending.push(worker.terminate());
    }
    await Promise.all(ending);
  }

  /** Hands waiting renders to free workers, starting a worker where a slot has none. */
  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.job !== undefined) continue;
      const job = this.queue.shift() as Pending;
      if (job.timer !== undefined) clearTimeout(job.timer);
      let worker: Worker;
      try {
        worker = slot.worker ?? (slot.worker = this.start(slot));
      } catch (e) {
        // no thread to be had (the process is out of resources): this render fails, the next tries again
        job.settle({ kind: 'failed', detail: `the template sandbox cannot start: ${e instanceof Error ? e.message : String(e)}` });
        continue;
      }
      slot.job = job;
      job.timer = setTimeout(() => {
        // the backstop: the worker did not answer in time, whatever holds it
        if (slot.job !== job) return;
        this.retire(slot);
        job.settle({ kind: 'timeout' });
        this.dispatch();
      }, job.deadlineMs);
      worker.postMessage(job.request);
    }
  }

  private start(slot: Slot): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: 16 },
      // the worker needs nothing of the service's environment
      env: {},
      execArgv: [],
    });
    this.started++;
    worker.on('message', (a: Answer) => this.answered(slot, worker, a));
    // a heap overflow (ERR_WORKER_OUT_OF_MEMORY) or any other end of the worker
    const died = (): void => {
      if (slot.worker !== worker) return; // already retired
      const job = slot.job;
      this.retire(slot);
      job?.settle({ kind: 'failed', detail: 'the template was stopped (it used too much memory, or its worker ended)' });
      this.dispatch();
    };
    worker.on('error', died);
    worker.on('exit', died);
    // an idle worker does not keep the process alive (a running render does, through its deadline timer);
    // after the 'message' listener, which would ref the worker's port again
    worker.unref();
    return worker;
  }

  private answered(slot: Slot, worker: Worker, a: Answer): void {
    const job = slot.job;
    // an answer of a retired worker, or for a render already given up, decides nothing
    if (slot.worker !== worker || job === undefined || a.id !== job.id) return;
    if (a.timeout) {
      this.retire(slot);
      job.settle({ kind: 'timeout' });
    } else {
      slot.job = undefined;
      job.settle(a.failed !== undefined ? { kind: 'failed', detail: a.failed } : { kind: 'done', out: a.out ?? '' });
    }
    this.dispatch();
  }

  /** The slot's worker is not used again: terminated (not awaited: a native call may hold it a while), the slot free for a new one. */
  private retire(slot: Slot): void {
    const worker = slot.worker;
    slot.worker = undefined;
    slot.job = undefined;
    if (worker) {
      this.terminated++;
      worker.terminate().catch(() => undefined);
    }
  }
}

const shared = new SandboxPool();

/** Runs a script in the service's template sandbox (the process-wide pool). */
export function runInWorker(job: SandboxJob): Promise<WorkerOutcome> {
  return shared.run(job);
}

/** Counts of the process-wide pool (for tests and diagnostics). */
export function sandboxStats(): SandboxStats {
  return shared.stats();
}
