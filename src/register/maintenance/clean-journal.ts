/**
 * Which journal records cleaning may remove, and removing them. Records go only from the start of a
 * register's chain (the store keeps the hash of the last removed one, so the rest still verifies), and
 * only up to the first record that is
 *   - not archived (archive-marks.ts: a backup or the portal holds every record up to its SQ), or
 *   - dated on or after `keep` (its D: ESR.D of transactions, else the time of recording), or
 *   - still read back by the service: the last Z and every record after it (the next Z folds them), the
 *     last record of each type (GET /last, the Cfg in force, GET /qr, the German TSE's last TraS...), and
 *     the last transaction of each TL/TT (POST /restart without TN compares with it).
 * The register's state row (counters, chain head, totals, the country's chains) is never touched.
 * A backup written into the data folder itself does not count as an archive: it shares the disk (a lost
 * or full disk takes both).
 */
import { activationKey, confirmedKey } from '../recorder/keys.js';
import { isAbsolute, relative, resolve } from 'node:path';
import type { ServiceContext } from '../context.js';
import type { Register } from '../registers.js';
import { type ArchiveMark, archivedUpTo } from './archive-marks.js';

export type CutLimit = 'archive' | 'keep' | 'needed' | 'portal';

export interface JournalCutPlan {
  rn: string;
  /** the SQ cleaning may remove up to (0: nothing); never lowers an existing cut */
  upTo: number;
  /** what stops it there */
  limit: CutLimit;
}

/** Whether an archive mark names a file inside the data folder. */
export function archivedInDataFolder(dataDir: string, mark: ArchiveMark): boolean {
  if (mark.file === undefined || !isAbsolute(mark.file)) return false;
  const rel = relative(resolve(dataDir), resolve(mark.file));
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** The highest SQ of a register that may go. */
export async function journalCutPlan(ctx: ServiceContext, reg: Register, keepFrom: string, committedSq = reg.state.sq): Promise<JournalCutPlan> {
  const state = reg.state;
  const rn = state.rn;
  const candidates: Array<[number, CutLimit]> = [];
  const mark = await archivedUpTo(ctx.store, rn);
  candidates.push([mark && !archivedInDataFolder(ctx.dataDir, mark) ? mark.sq : 0, 'archive']);
  // an instance connected to the portal keeps what the portal has not confirmed, whatever else archived it
  if (await ctx.store.getSetting(activationKey('def'))) candidates.push([Number((await ctx.store.getSetting(confirmedKey(rn))) ?? '0') || 0, 'portal']);
  for await (const r of ctx.store.find(state.rid, { from: keepFrom, sort: 'asc' }, 1)) {
    candidates.push([r.sq - 1, 'keep']);
    break;
  }
  const needed = [state.zSq, ...Object.values(state.last), ...Object.values(state.lastTT).map((t) => t.sq)].filter((sq): sq is number => typeof sq === 'number');
  // no Z yet: the first Z folds every record from SQ 1
  candidates.push([Math.min(state.sq, committedSq, ...needed) - 1, 'needed']);
  let best: [number, CutLimit] = [Number.MAX_SAFE_INTEGER, 'needed'];
  for (const c of candidates) if (c[0] < best[0]) best = c;
  return { rn, upTo: Math.max(0, best[0]), limit: best[1] };
}

export interface JournalCleaned {
  rn: string;
  removed: number;
  /** the register's journal now starts after this SQ */
  cut: number;
  limit: CutLimit;
}

/** Removes what may go of every register's journal. */
export async function cleanJournal(ctx: ServiceContext, keepFrom: string): Promise<JournalCleaned[]> {
  const out: JournalCleaned[] = [];
  const at = ctx.clock.now().toISOString();
  // the memory state may be ahead of the store while a commit is in flight: the last committed record stays too
  const committed = new Map((await ctx.store.loadRegisters()).map((s) => [s.rid, s.sq]));
  for (const reg of ctx.registers.list()) {
    const plan = await journalCutPlan(ctx, reg, keepFrom, committed.get(reg.state.rid) ?? 0);
    const before = (await ctx.store.cutOf(reg.state.rid))?.sq ?? 0;
    const removed = plan.upTo > before ? await ctx.store.removeUpTo(reg.state.rid, plan.upTo, at) : 0;
    out.push({ rn: plan.rn, removed, cut: Math.max(before, plan.upTo), limit: plan.limit });
  }
  return out;
}
