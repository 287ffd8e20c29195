/**
 * The journal's writer thread: compresses, inserts and commits (fsync) batches posted by the main
 * thread, so that the main thread keeps decoding and validating requests while the disk works.
 * It acknowledges a batch only after the commit.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { JournalRecord } from '../types.js';
import { createAppender, openForWriting } from './append.js';

interface Batch {
  id: number;
  records: JournalRecord[];
  states: Array<[number, string]>;
}

const { file, nosync } = workerData as { file: string; nosync: boolean };
const db = new Database(file);
openForWriting(db, nosync);
const append = createAppender(db);

parentPort?.on('message', (msg: Batch | 'close') => {
  if (msg === 'close') {
    db.close();
    parentPort?.close();
    return;
  }
  try {
    append(msg.records, msg.states);
    parentPort?.postMessage({ id: msg.id, ok: true });
  } catch (e) {
    parentPort?.postMessage({ id: msg.id, ok: false, error: e instanceof Error ? e.message : String(e) });
  }
});
