/**
 * How many POS installations (registers other than def) one instance serves: a cloud instance at most 100 (the
 * spec's limit), a local one without a limit; EFR_MAX_POS sets another number for either (0: no limit). Counted in
 * the journal, so that registers made by other processes sharing it count too. Two processes making the last
 * free register at the very same moment may both succeed: the limit is a capacity bound, not a fiscal rule.
 */
import { FiscalError } from '../shared/errors.js';
import type { JournalStore } from './journal/types.js';

export const CLOUD_MAX_POS = 100;

/** The limit for this instance: undefined when there is none. */
export function maxPosOf(env: NodeJS.ProcessEnv, cloud: boolean): number | undefined {
  const text = env.EFR_MAX_POS;
  if (text !== undefined && text !== '') {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0) throw new Error(`invalid EFR_MAX_POS: ${text} (a whole number, 0 for no limit)`);
    return n === 0 ? undefined : n;
  }
  return cloud ? CLOUD_MAX_POS : undefined;
}

/** Refuses a new register beyond the limit (#REGISTER_LIMIT); a register the journal holds is always served. */
export async function assertRegisterRoom(ctx: { maxPos: number | undefined; store: Pick<JournalStore, 'heads'> }, rn: string): Promise<void> {
  const limit = ctx.maxPos;
  if (limit === undefined || rn === 'def') return;
  const heads = await ctx.store.heads();
  if (heads.some((h) => h.rn === rn)) return;
  const used = heads.filter((h) => h.rn !== 'def').length;
  if (used >= limit) throw new FiscalError('#REGISTER_LIMIT', { value: rn, limit: String(limit) });
}
