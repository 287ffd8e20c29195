/**
 * The journal's writer thread: signs (records handed over unsigned), compresses, inserts and commits (fsync) batches posted by the main
 * thread, so that the main thread keeps decoding and validating requests while the disk works.
 * (A quiet batch, when no other request is ready, is committed on the main thread: sqlite-store.ts, commitsHere.)
 * It acknowledges a batch only after the commit. Cleaning's steps (maintain.ts) come the same way, so
 * that batches posted meanwhile are committed between two steps.
 */
import type { KeyObject } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { JournalRecord } from '../types.js';
import { createAppender, openForWriting } from './append.js';
import { type MaintainOp, maintainStep } from './maintain.js';

interface Batch {
  id: number;
  records: JournalRecord[];
  states: Array<[number, string]>;
  /** the instance key for the records handed over unsigned (signing here keeps it off the main thread) */
  key?: KeyObject;
}

/** A step of cleaning (maintain.ts), taken in turn with the batches. */
type Maintain = { id: number; maintain: MaintainOp };

const { file, nosync } = workerData as { file: string; nosync: boolean };
const db = new Database(file);
openForWriting(db, nosync);
const append = createAppender(db);

// After a failed batch, the batches already sent behind it were chained on top of it: refuse them
// until the main thread has read the state back and says 'resume'.
let failed: { error: string; code?: string } | undefined;

/** The message and code (SQLITE_FULL, SQLITE_IOERR_WRITE, ...) of a failure: the main thread maps the code (disk full). */
function failureOf(e: unknown): { error: string; code?: string } {
  const code = (e as { code?: unknown }).code;
  return { error: e instanceof Error ? e.message : String(e), ...(typeof code === 'string' ? { code } : {}) };
}

parentPort?.on('message', (msg: Batch | Maintain | 'close' | 'resume') => {
  if (msg === 'close') {
    db.close();
    parentPort?.close();
    return;
  }
  if (msg === 'resume') {
    failed = undefined;
    return;
  }
  if ('maintain' in msg) {
    // cleaning does not depend on the chain: it runs after a failed batch too (it may be what frees the disk)
    try {
      parentPort?.postMessage({ id: msg.id, ok: true, value: maintainStep(db, msg.maintain) });
    } catch (e) {
      parentPort?.postMessage({ id: msg.id, ok: false, ...failureOf(e) });
    }
    return;
  }
  if (failed !== undefined) {
    parentPort?.postMessage({ id: msg.id, ok: false, ...failed, error: `an earlier batch failed: ${failed.error}` });
    return;
  }
  try {
    const sigs = append(msg.records, msg.states, msg.key);
    parentPort?.postMessage({ id: msg.id, ok: true, sigs });
  } catch (e) {
    failed = failureOf(e);
    parentPort?.postMessage({ id: msg.id, ok: false, ...failed });
  }
});
