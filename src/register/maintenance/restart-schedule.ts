/**
 * App_restartAt: the daily automatic restart. The value is read from the `def`
 * profile (an instance setting) at every check, so a change through POST /profile or the environment
 * applies without a restart:
 * - a time `H:MM`, `HH:MM` or `HH:MM:SS` (local time): restart daily at that time, also without a
 *   service manager (the operator asked for it explicitly);
 * - absent, or the bare name: 03:00:00, but only when the service runs under a service manager
 *   (`efr serve --service`, or systemd); a plain `efr serve` in a terminal would not come back;
 * - `NO`, `off`, `false`, `0`: never.
 * The restart itself is ServiceControl's: the same graceful close as SIGTERM (requests in flight are
 * answered and committed first), then the process exits with RESTART_EXIT_CODE.
 */
import type { Clock } from '../../shared/clock.js';

export const DEFAULT_RESTART_AT = '03:00:00';
/** How often the schedule looks at the clock; a restart happens within this much after its time. */
export const RESTART_CHECK_MS = 30_000;

const OFF = new Set(['no', 'off', 'false', '0', 'never']);

/** The time of day of a restart (`HH:MM:SS`), null for none, or an error text for a value that is neither. */
export type RestartAt = { at: string | null } | { error: string };

export function restartAtOf(value: string | undefined, asService: boolean): RestartAt {
  const text = value?.trim();
  if (text === undefined || text === '' || text.toLowerCase() === 'true') return { at: asService ? DEFAULT_RESTART_AT : null };
  if (OFF.has(text.toLowerCase())) return { at: null };
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(text);
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59 || Number(m[3] ?? '0') > 59) return { error: `"${text}" is no time of day HH:MM[:SS] and not NO` };
  return { at: `${(m[1] as string).padStart(2, '0')}:${m[2] as string}:${m[3] ?? '00'}` };
}

/** The first moment strictly after `after` whose local time of day is `at` (`HH:MM:SS`). */
export function nextRestart(after: Date, at: string): Date {
  const [h, m, s] = at.split(':').map(Number) as [number, number, number];
  const next = new Date(after.getFullYear(), after.getMonth(), after.getDate(), h, m, s, 0);
  if (next.getTime() <= after.getTime()) {
    // tomorrow at the same local time (setDate keeps the wall clock across a change of daylight saving time)
    next.setDate(next.getDate() + 1);
    next.setHours(h, m, s, 0);
  }
  return next;
}

interface ScheduleSink {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export class RestartSchedule {
  private current: string | null | undefined;
  private due: Date | undefined;
  private warned: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private fired = false;

  constructor(
    private readonly clock: Clock,
    /** the App_restartAt attribute of the `def` profile as it is now */
    private readonly value: () => string | undefined,
    private readonly asService: boolean,
    private readonly restart: () => void,
    private readonly log?: ScheduleSink,
  ) {
    this.refresh(this.clock.now());
  }

  /** When the next restart happens, or undefined when none is planned. */
  get next(): Date | undefined {
    return this.due ? new Date(this.due.getTime()) : undefined;
  }

  private refresh(now: Date): void {
    const raw = this.value();
    const parsed = restartAtOf(raw, this.asService);
    let at: string | null;
    if ('error' in parsed) {
      // a stored value the profile check would now refuse: keep the default rather than guess
      if (this.warned !== raw) this.log?.warn({ type: 'RESTART', value: raw }, `App_restartAt ${parsed.error}; using the default`);
      this.warned = raw;
      const fallback = restartAtOf(undefined, this.asService);
      at = 'at' in fallback ? fallback.at : null;
    } else at = parsed.at;
    if (at === this.current) return;
    this.current = at;
    this.due = at === null ? undefined : nextRestart(now, at);
    if (this.due) this.log?.info({ type: 'RESTART', at, next: this.due.toISOString() }, `daily restart at ${at}`);
    else this.log?.info({ type: 'RESTART' }, 'no daily restart');
  }

  /** Restarts when the time has come; true when it did. Run by the timer, and by tests with a ManualClock. */
  check(): boolean {
    if (this.fired) return false;
    const now = this.clock.now();
    this.refresh(now);
    if (!this.due || now.getTime() < this.due.getTime()) return false;
    this.fired = true;
    this.log?.info({ type: 'RESTART', at: this.current }, 'daily restart (App_restartAt)');
    this.restart();
    return true;
  }

  start(intervalMs = RESTART_CHECK_MS): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.check(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
