/**
 * Runs due deactivations and register discharges, then the notification check (silent registers, escalation):
 * at start, then every `intervalMs` (default one minute) by the injected clock's time. One run at a time; the
 * timer is unref'd and stopped by `stop()`. A failed notification check is logged and does not fail the run.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { PortalContext } from './context.js';
import { checkNotifications } from './notifications/lifecycle.js';
import { runDue } from './services/deactivation.js';

export interface Scheduler {
  /** one run now (waits for a run under way first) */
  runNow(): Promise<{ entities: number[]; registers: string[] }>;
  stop(): Promise<void>;
}

export function startScheduler(ctx: PortalContext, intervalMs = 60_000, log?: FastifyBaseLogger): Scheduler {
  let running: Promise<{ entities: number[]; registers: string[] }> = Promise.resolve({ entities: [], registers: [] });
  let stopped = false;
  const runNow = (): Promise<{ entities: number[]; registers: string[] }> => {
    running = running.catch(() => ({ entities: [], registers: [] })).then(async () => {
      const due = await runDue(ctx);
      await checkNotifications(ctx).catch((e: unknown) => log?.error({ err: e }, 'the notification check failed'));
      return due;
    });
    return running;
  };
  const tick = (): void => {
    if (stopped) return;
    runNow().catch((e: unknown) => log?.error({ err: e }, 'scheduled deactivations failed'));
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    runNow,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running.catch(() => undefined);
    },
  };
}
