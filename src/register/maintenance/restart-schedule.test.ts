import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../shared/clock.js';
import { RestartSchedule, nextRestart, restartAtOf } from './restart-schedule.js';

test('App_restartAt values: a time, the default only as a service, NO/off, and refusals', () => {
  assert.deepEqual(restartAtOf(undefined, true), { at: '03:00:00' });
  assert.deepEqual(restartAtOf(undefined, false), { at: null });
  assert.deepEqual(restartAtOf('true', true), { at: '03:00:00' }, 'the bare name');
  assert.deepEqual(restartAtOf('4:05', false), { at: '04:05:00' });
  assert.deepEqual(restartAtOf(' 23:59:30 ', true), { at: '23:59:30' });
  for (const off of ['NO', 'off', 'False', '0']) assert.deepEqual(restartAtOf(off, true), { at: null }, off);
  for (const bad of ['24:00', '3', '03:60', '03:00:61', 'noon']) assert.ok('error' in restartAtOf(bad, true), bad);
});

test('the next restart is strictly after now, tomorrow when today\'s time has passed', () => {
  const at = (d: Date): string => `${d.getFullYear()}-${d.getMonth() + 1}-${d.getDate()} ${d.toTimeString().slice(0, 8)}`;
  assert.equal(at(nextRestart(new Date(2026, 0, 31, 2, 0, 0), '03:00:00')), '2026-1-31 03:00:00');
  assert.equal(at(nextRestart(new Date(2026, 0, 31, 3, 0, 0), '03:00:00')), '2026-2-1 03:00:00', 'started at 03:00: not again at once');
  assert.equal(at(nextRestart(new Date(2026, 11, 31, 23, 0, 0), '03:00:00')), '2027-1-1 03:00:00');
});

test('a schedule fires once when its time has come, and follows a changed value', () => {
  const clock = new ManualClock(new Date(2026, 5, 1, 10, 0, 0));
  let value: string | undefined = '10:30';
  let fired = 0;
  const s = new RestartSchedule(clock, () => value, false, () => (fired += 1));
  clock.set(new Date(2026, 5, 1, 10, 20, 0));
  value = '10:10'; // already passed today: tomorrow
  assert.equal(s.check(), false);
  assert.equal(s.next?.getTime(), new Date(2026, 5, 2, 10, 10, 0).getTime());
  value = 'NO';
  clock.set(new Date(2026, 5, 2, 11, 0, 0));
  assert.equal(s.check(), false);
  assert.equal(s.next, undefined);
  value = '11:00:30';
  assert.equal(s.check(), false);
  clock.advance(30_000);
  assert.equal(s.check(), true);
  assert.equal(s.check(), false);
  assert.equal(fired, 1);
});
