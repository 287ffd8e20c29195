/**
 * Stopping the service for a restart (POST /service/restart, App_restartAt) and for a signal, all
 * through one graceful close: no new connections, requests in flight answered and committed, the
 * journal drained and closed, the log flushed. The process then exits and a service manager starts it
 * again: after a restart with RESTART_EXIT_CODE, after SIGTERM/SIGINT with 0 (see docs/operations.md).
 */
import type { Clock } from '../../shared/clock.js';
import { RestartSchedule } from './restart-schedule.js';

/**
 * The exit code of a requested or scheduled restart: 75 (EX_TEMPFAIL, "try again"). Not 0, so that a
 * service manager that restarts only failed processes (systemd Restart=on-failure, WinSW onfailure)
 * starts the service again; systemd units name it in RestartForceExitStatus= and SuccessExitStatus=.
 */
export const RESTART_EXIT_CODE = 75;

export type StopReason = 'request' | 'schedule' | 'SIGTERM' | 'SIGINT';

export interface Stopped {
  /** the first reason asked for (later ones join the close already under way) */
  reason: StopReason;
  /** true when the close finished cleanly */
  ok: boolean;
  /** the exit code the process should end with */
  exitCode: number;
}

interface ControlSink {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ServiceControlOptions {
  clock: Clock;
  /** the App_restartAt attribute of the `def` profile as it is now */
  restartAt: () => string | undefined;
  /** runs under a service manager (`efr serve --service` or systemd): App_restartAt defaults to 03:00 */
  asService: boolean;
  /** called once the service closed for a restart (the CLI exits the process there) */
  onRestart?: (stopped: Stopped) => void;
  log?: ControlSink;
}

export const isRestart = (reason: StopReason): boolean => reason === 'request' || reason === 'schedule';

/**
 * HttpServer_Disable of the `def` profile (or its environment setting): no HTTP listener at all, the file
 * interface only. The bare name, or any value but `false`, `0`, `no`, `off`, turns it on. Read at start.
 */
export function httpServerDisabled(value: string | undefined): boolean {
  return value !== undefined && !['false', '0', 'no', 'off'].includes(value.trim().toLowerCase());
}

export class ServiceControl {
  readonly schedule: RestartSchedule;
  private close: (() => Promise<void>) | undefined;
  private stopping: Promise<Stopped> | undefined;

  constructor(private readonly options: ServiceControlOptions) {
    this.schedule = new RestartSchedule(options.clock, options.restartAt, options.asService, () => void this.stop('schedule'), options.log);
  }

  /** The service's graceful close (given once the service is up). */
  attach(close: () => Promise<void>): void {
    this.close = close;
    this.schedule.start();
  }

  /** True once a stop (restart or signal) has begun. */
  get stoppingNow(): boolean {
    return this.stopping !== undefined;
  }

  /**
   * Closes the service gracefully, once: a second call (a SIGTERM during a restart) gets the same
   * promise, and the exit code of the first reason.
   */
  stop(reason: StopReason): Promise<Stopped> {
    if (this.stopping) return this.stopping;
    this.schedule.stop();
    const log = this.options.log;
    log?.info({ type: 'STOP_EFR', reason }, isRestart(reason) ? `restart (${reason === 'request' ? 'POST /service/restart' : 'App_restartAt'}): closing after the last commit` : `${reason}: closing after the last commit`);
    const close = this.close ?? (async () => undefined);
    this.stopping = close().then(
      () => ({ reason, ok: true, exitCode: isRestart(reason) ? RESTART_EXIT_CODE : 0 }),
      (e: unknown) => {
        log?.error({ type: 'STOP_EFR', err: e, reason }, 'the service did not close cleanly');
        return { reason, ok: false, exitCode: 1 };
      },
    );
    if (isRestart(reason)) void this.stopping.then((stopped) => this.options.onRestart?.(stopped));
    return this.stopping;
  }

  /** Stops the schedule's timer (the service closes). */
  dispose(): void {
    this.schedule.stop();
  }
}
