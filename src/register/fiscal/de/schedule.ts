/**
 * Daily and event-driven tasks of German registers, run every 30 seconds by the server (and directly by
 * tests with an injected clock):
 * - the TSE self test at TSE_SelfTestAt (default 03:05:00): a signed system event, journaled as `log`;
 * - the TSE backup at TSE_BackupAt (default a time between 03:10:00 and 04:10:00 fixed per register;
 *   `NO` disables): the TSE export of the log messages after the last backup's, written to
 *   `<data>/de/<RN>/backup/tse-<time>.tar`;
 * - with TSE_BackupDelete, the same export after each Z (our TSE keeps its logs in the journal, which
 *   is never deleted; a certified TSE's driver deletes the exported logs from the TSE's storage);
 * - the fiscal backup at Fiscal_BackupAt (default 04:00; `NO` disables): the DSFinV-K export of the
 *   closings after the last one backed up (by Z number), `<data>/de/<RN>/backup/dsfinvk-<time>.zip`.
 * Backups are written atomically; what was backed up last is kept in the journal's settings. A register
 * whose task fails is logged and tried again an hour later; the other registers' tasks go on.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Obj } from '../../codec/index.js';
import type { ServiceContext } from '../../context.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import { appendRecord } from '../../record-writer.js';
import type { Register } from '../../registers.js';
import { writeStreamAtomic } from '../../../shared/files.js';
import { timeOfDay } from '../../profile/attributes.js';
import { countryOf } from '../country.js';
import { dsfinvkZip, exportTse } from './exports.js';
import { TSE_DESCRIPTION, systemEventFis } from './system-events.js';
import { openTse, tseDir } from './tse.js';

const DEFAULT_SELF_TEST = '03:05:00';
const DEFAULT_FISCAL_BACKUP = '04:00:00';

/** The default TSE backup time: between 03:10:00 and 04:10:00, fixed per register (so registers do not all start at once). */
export function defaultTseBackupAt(rn: string): string {
  const s = 3 * 3600 + 600 + (createHash('sha256').update(rn).digest().readUInt32BE(0) % 3600);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
}

const truthy = (v: string | undefined): boolean => ['1', 'true', 'yes', 'on'].includes((v ?? '').trim().toLowerCase());

export async function runScheduled(ctx: ServiceContext, report: (e: unknown, rn: string) => void = () => undefined): Promise<number> {
  const now = ctx.clock.now();
  let done = 0;
  for (const reg of ctx.registers.list()) {
    if (countryOf(reg.state.cfg) !== 'DE' || reg.state.country['de|initialized'] !== '1') continue;
    const rn = reg.state.rn;
    // a register whose task failed is tried again after RETRY_MS; the others go on meanwhile
    if ((failedUntil.get(rn) ?? 0) > now.getTime()) continue;
    try {
      done += await registerTasks(ctx, reg, now);
    } catch (e) {
      failedUntil.set(rn, now.getTime() + RETRY_MS);
      report(e, rn);
    }
  }
  return done;
}

const RETRY_MS = 3_600_000;
const failedUntil = new Map<string, number>();

async function registerTasks(ctx: ServiceContext, reg: Register, now: Date): Promise<number> {
  const stamp = formatLocalDateTime(now);
  const today = stamp.slice(0, 10);
  const clock = stamp.slice(11);
  let done = 0;
  {
    const rn = reg.state.rn;
    const raw = ctx.profiles.settings(rn).raw;
    const due = (attribute: string, fallback: string): boolean => {
      const at = timeOfDay(raw.get(attribute));
      return at !== null && clock >= (at ?? fallback);
    };
    if (due('tse_selftestat', DEFAULT_SELF_TEST) && reg.state.country['de|selfTest'] !== today) {
      await selfTest(ctx, reg, now, today);
      done += 1;
    }
    const backups = join(tseDir(ctx.dataDir, rn), 'backup');
    const name = stamp.replace(/[-:]/g, '').replace('T', '-');
    const setting = async (key: string): Promise<string> => (await ctx.store.getSetting(`de.backup.${key}:${rn}`)) ?? '';
    const remember = (key: string, value: string): Promise<void> => ctx.store.putSetting(`de.backup.${key}:${rn}`, value);
    const afterZ = truthy(raw.get('tse_backupdelete')) && reg.state.zi > 0 && String(reg.state.zi) !== (await setting('tse.z'));
    const daily = due('tse_backupat', defaultTseBackupAt(rn)) && (await setting('tse.day')) !== today;
    if (afterZ || daily) {
      // the log messages since the last backup
      const since = await setting('tse.counter');
      mkdirSync(backups, { recursive: true, mode: 0o700 });
      const { tar, throughCounter } = await exportTse(ctx, reg, since ? { afterCounter: BigInt(since) } : {});
      await writeStreamAtomic(join(backups, `tse-${name}.tar`), tar, 0o600);
      await remember('tse.counter', throughCounter.toString());
      if (daily) await remember('tse.day', today);
      if (afterZ) await remember('tse.z', String(reg.state.zi));
      done += 1;
    }
    if (due('fiscal_backupat', DEFAULT_FISCAL_BACKUP) && (await setting('fiscal.day')) !== today) {
      // the closings after the last one backed up (by Z number: a Z dated back is not missed)
      const lastZ = await setting('fiscal.z');
      const exp = await dsfinvkZip(ctx, reg, lastZ ? { afterZ: Number(lastZ) } : {}, false);
      if (exp.closings > 0) {
        mkdirSync(backups, { recursive: true, mode: 0o700 });
        await writeStreamAtomic(join(backups, `dsfinvk-${name}.zip`), exp.zip, 0o600);
        await remember('fiscal.z', String(exp.lastZ));
      } else {
        exp.zip.resume();
      }
      await remember('fiscal.day', today);
      done += 1;
    }
  }
  return done;
}

async function selfTest(ctx: ServiceContext, reg: Register, now: Date, today: string): Promise<void> {
  const tse = openTse(ctx.dataDir, reg.state.rn);
  const stamp = formatLocalDateTime(now);
  await appendRecord(ctx, reg, { type: 'log', data: { TS: stamp, Event: 'TSE selfTest' }, index: { d: stamp } }, (): Obj => {
    reg.state.country['de|selfTest'] = today;
    // the software TSE's only component is its key: the test passed when it signs this very log
    return systemEventFis(reg.state.country, tse, BigInt(Math.floor(now.getTime() / 1000)), { operationType: 'selfTest', componentName: TSE_DESCRIPTION, result: true });
  });
}
