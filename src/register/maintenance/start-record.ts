/**
 * The spec's recorded events include "log entries of type START_EFR", and `log` is one of its journal record
 * types: every start of the service is journaled in each register as a `log` record
 * `{TS, Event: "START_EFR", Version}`, so `/find?_=log` shows when the service ran (a gap between a register's
 * records and the next start is visible in the journal itself, not only in the rotating log file).
 * A country that journals a start record of its own (France's technical events journal, the POS application
 * start of Norway's and Denmark's SAF-T) has recorded this start already in its form: a second record would
 * be a second start event in its exports.
 */
import type { ServiceContext } from '../context.js';
import { formatLocalDateTime } from '../esr/datetime.js';
import { appendRecord } from '../record-writer.js';
import type { Register } from '../registers.js';

export const START_EVENT = 'START_EFR';

export async function journalStart(ctx: ServiceContext, reg: Register): Promise<void> {
  const d = formatLocalDateTime(ctx.clock.now());
  await appendRecord(ctx, reg, { type: 'log', data: { TS: d, Event: START_EVENT, Version: ctx.version }, index: { d } }, undefined, true);
}
