/**
 * Daily tasks of the German TSE: the self test at TSE_SelfTestAt (default 03:05:00) is a signed system
 * event of every German register's TSE, journaled as a `log` record. `runScheduled` is called every
 * 30 seconds by the server (and directly by tests with an injected clock).
 */
import type { Obj } from '../../codec/index.js';
import type { ServiceContext } from '../../context.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import { appendRecord } from '../../pipeline.js';
import { countryOf } from '../registry.js';
import { systemEvent } from './index.js';
import { openTse } from './tse.js';

const DEFAULT_SELF_TEST = '03:05:00';

/** `H:MM`, `HH:MM` or `HH:MM:SS` as `HH:MM:SS`; the default otherwise. */
function timeOf(text: string | undefined): string {
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(text ?? '');
  return m ? `${(m[1] as string).padStart(2, '0')}:${m[2] as string}:${m[3] ?? '00'}` : DEFAULT_SELF_TEST;
}

export async function runScheduled(ctx: ServiceContext): Promise<number> {
  const now = ctx.clock.now();
  const stamp = formatLocalDateTime(now);
  const today = stamp.slice(0, 10);
  const clock = stamp.slice(11);
  let done = 0;
  for (const reg of ctx.registers.list()) {
    if (countryOf(reg.state.cfg) !== 'DE' || reg.state.country['de|initialized'] !== '1') continue;
    const at = timeOf(ctx.profiles.settings(reg.state.rn).raw.get('tse_selftestat'));
    if (clock < at || reg.state.country['de|selfTest'] === today) continue;
    const tse = openTse(ctx.dataDir, reg.state.rn);
    await appendRecord(ctx, reg, { type: 'log', data: { TS: stamp, Event: 'TSE selfTest' }, index: { d: stamp } }, (): Obj => {
      const log = systemEvent(reg.state.country, tse, BigInt(Math.floor(now.getTime() / 1000)), 'selfTest', Buffer.alloc(0));
      reg.state.country['de|selfTest'] = today;
      return log ? { LogSystem: log.toString('base64') } : { Failed: 'TSE ausgefallen' };
    });
    done += 1;
  }
  return done;
}
