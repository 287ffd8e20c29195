/**
 * The sandbox's worker pool on its own: renders are awaited (the calling thread runs on), the
 * deadline terminates a worker the vm timeout did not stop, a worker whose template hit a limit is
 * replaced, one hung template leaves the other worker free, and the queue is bounded in time and size.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SandboxPool, type SandboxJob, type WorkerOutcome } from './sandbox-worker.js';

let seq = 0;
function job(source: string, extra: Partial<SandboxJob> = {}): SandboxJob {
  seq++;
  return { key: `k${seq}`, source, filename: `test:${seq}`, json: `"locals ${seq}"`, timeoutMs: 1000, ...extra };
}

/** Spins on the worker's thread; with a long vm timeout only the pool's deadline ends it. */
const FOREVER = 'for (;;) {}';
const ECHO = '"echo " + __efrLocals';

/** Settles with the outcome and notes in `order`, under `name`, when it did. */
function noted(order: string[], name: string, p: Promise<WorkerOutcome>): Promise<WorkerOutcome> {
  return p.then((o) => {
    order.push(name);
    return o;
  });
}

test('sandbox pool: a worker the vm timeout does not stop is terminated at the deadline, the caller is answered "timeout" and the next render gets a new worker', async () => {
  const pool = new SandboxPool({ size: 1 });
  try {
    const order: string[] = [];
    // the vm would let it run for a minute: only the deadline stops it
    const hung = noted(order, 'hung', pool.run(job(FOREVER, { timeoutMs: 60_000, deadlineMs: 500 })));
    const behind = noted(order, 'behind', pool.run(job(ECHO)));
    // this thread is not blocked while the worker spins: a timer fires before the hung render is answered
    await noted(order, 'timer', new Promise((r) => setTimeout(() => r({ kind: 'done', out: '' }), 20)));
    assert.deepEqual(order, ['timer']);
    assert.deepEqual(pool.stats(), { started: 1, terminated: 0, busy: 1, queued: 1 });

    assert.deepEqual(await hung, { kind: 'timeout' });
    const next = await behind;
    assert.equal(next.kind, 'done');
    assert.match(next.kind === 'done' ? next.out : '', /^echo "locals \d+"$/);
    assert.deepEqual(order, ['timer', 'hung', 'behind']);
    const s = pool.stats();
    assert.equal(s.terminated, 1);
    assert.equal(s.started, 2, 'the render queued behind the hung one ran in a new worker');
    assert.equal(s.busy + s.queued, 0);
  } finally {
    await pool.close();
  }
});

test('sandbox pool: the vm timeout answers "timeout" and the worker is replaced; an ordinary failure keeps the worker', async () => {
  const pool = new SandboxPool({ size: 1 });
  try {
    assert.deepEqual(await pool.run(job(FOREVER, { timeoutMs: 100 })), { kind: 'timeout' });
    assert.equal(pool.stats().terminated, 1);
    assert.deepEqual(await pool.run(job('throw new Error("no")')), { kind: 'failed', detail: 'the template could not be run' });
    assert.deepEqual(await pool.run(job('42')), { kind: 'failed', detail: 'the template did not produce text' });
    assert.equal((await pool.run(job(ECHO))).kind, 'done');
    assert.deepEqual({ ...pool.stats() }, { started: 2, terminated: 1, busy: 0, queued: 0 });
  } finally {
    await pool.close();
  }
});

test('sandbox pool: with two workers, a hung template does not hold the renders of the other', async () => {
  const pool = new SandboxPool({ size: 2 });
  try {
    const order: string[] = [];
    const hung = noted(order, 'hung', pool.run(job(FOREVER, { timeoutMs: 60_000, deadlineMs: 3000 })));
    for (let i = 0; i < 3; i++) assert.equal((await noted(order, `quick ${i}`, pool.run(job(ECHO)))).kind, 'done');
    assert.deepEqual(order, ['quick 0', 'quick 1', 'quick 2']);
    assert.deepEqual(await hung, { kind: 'timeout' });
  } finally {
    await pool.close();
  }
});

test('sandbox pool: the queue is bounded: a render that cannot start in time, or finds the queue full, is answered "busy"', async () => {
  const pool = new SandboxPool({ size: 1, maxQueueWaitMs: 200, maxQueued: 1 });
  try {
    const order: string[] = [];
    const hung = noted(order, 'hung', pool.run(job(FOREVER, { timeoutMs: 60_000, deadlineMs: 5000 })));
    const waiting = noted(order, 'waiting', pool.run(job(ECHO)));
    const refused = await noted(order, 'refused', pool.run(job(ECHO)));
    assert.deepEqual(refused, { kind: 'busy', waitedMs: 0 });
    const waited = await waiting;
    assert.equal(waited.kind, 'busy');
    assert.ok(waited.kind === 'busy' && waited.waitedMs >= 150, JSON.stringify(waited));
    assert.deepEqual(order, ['refused', 'waiting'], 'both answered while the hung render still held the worker');
    assert.equal(pool.stats().busy, 1);
    await pool.close();
    assert.deepEqual(await hung, { kind: 'failed', detail: 'the template sandbox was closed' });
  } finally {
    await pool.close();
  }
});

test('sandbox pool: a template that exhausts the worker heap fails, and a new worker serves the next render', async () => {
  const pool = new SandboxPool({ size: 1 });
  try {
    const hungry = await pool.run(job('(function () { var a = []; for (;;) a.push(new Array(100000).fill(a.length)); })()', { timeoutMs: 20_000 }));
    assert.equal(hungry.kind, 'failed');
    const next = await pool.run(job(ECHO));
    assert.equal(next.kind, 'done');
    assert.equal(pool.stats().started, 2);
  } finally {
    await pool.close();
  }
});
