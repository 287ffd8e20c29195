/**
 * The records of a period as a chain can verify them: the smallest contiguous SQ range that holds every
 * record dated in the period (from the first such record to the last). Records in between are included
 * whatever their date (a receipt dated back by an offline POS sits among today's), so no chain has a gap.
 * Two indexed queries on D, no reading of the journal.
 */
import { nextDay } from '../esr/datetime.js';
import type { FindQuery, JournalStore } from './types.js';

export interface DatePeriod {
  /** YYYY-MM-DD, inclusive */
  from?: string;
  /** YYYY-MM-DD, inclusive */
  till?: string;
}

/** SQ range of a register's committed journal (ending at `headSq`) for a period; all of it without one; undefined when empty. */
export async function periodSqRange(store: JournalStore, rid: number, headSq: number, period: DatePeriod = {}): Promise<{ firstSQ: number; lastSQ: number } | undefined> {
  if (headSq < 1) return undefined;
  // a cleaned journal starts after its cut
  const firstKept = ((await store.cutOf(rid))?.sq ?? 0) + 1;
  if (period.from === undefined && period.till === undefined) return firstKept <= headSq ? { firstSQ: firstKept, lastSQ: headSq } : undefined;
  const query: Omit<FindQuery, 'sort'> = {
    endSq: headSq,
    ...(period.from !== undefined ? { from: period.from } : {}),
    ...(period.till !== undefined ? { before: nextDay(period.till) } : {}),
  };
  const edge = async (sort: 'asc' | 'desc'): Promise<number | undefined> => {
    for await (const r of store.find(rid, { ...query, sort }, 1)) return r.sq;
    return undefined;
  };
  const first = await edge('asc');
  const last = await edge('desc');
  return first === undefined || last === undefined ? undefined : { firstSQ: first, lastSQ: last };
}
