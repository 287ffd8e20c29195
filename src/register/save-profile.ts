/**
 * Saving a profile, the one way POST /profile and the Profile page (POST /) both take: the update (validated
 * and refused by the profile store), the listener and the recorder told (def), the log line (which register,
 * not what: attributes may hold PINs), and each affected register's country module told.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Obj } from './codec/index.js';
import { configChanged } from './cfg.js';
import type { ServiceContext } from './context.js';

export async function saveProfile(ctx: ServiceContext, rn: string, body: Obj, log: Pick<FastifyBaseLogger, 'info'>): Promise<void> {
  await ctx.profiles.update(rn, body);
  log.info({ type: 'PROFILE', rn }, 'profile changed');
  // HttpServer_Port / HttpServer_IPv4: the listener moves after this answer
  if (rn === 'def') ctx.listenerSettingsChanged?.();
  // a Badge starts the activation at the portal (after Recorder_init ms)
  if (rn === 'def') ctx.recorder?.profileSaved();
  // the def profile is the default of every register
  for (const reg of rn === 'def' ? ctx.registers.list() : [ctx.registers.get(rn)]) if (reg) await configChanged(ctx, reg);
}
