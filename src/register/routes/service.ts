/**
 * Service control: POST /service/restart and POST /lic. Who may call them is the
 * access table's business (security/route-access.ts: both local-or-password).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import type { ServiceContext } from '../context.js';
import { maskLicenseKey, storeLicenseKey } from '../maintenance/license.js';
import { rnOfQuery } from '../register-number.js';
import { formatOf, guarded, queryOf, sendDoc } from './http.js';

/** `key` of the query, else of a form or JSON body. */
function keyOf(req: FastifyRequest): string | undefined {
  const fromQuery = queryOf(req).key;
  if (fromQuery !== undefined) return fromQuery;
  const body = typeof req.body === 'string' ? req.body.trim() : '';
  if (body === '') return undefined;
  if (body.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (e) {
      throw new FiscalError('#MALFORMED', { format: 'JSON', detail: e instanceof Error ? e.message : String(e) });
    }
    const value = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>).key : undefined;
    if (value !== undefined && typeof value !== 'string') throw new FiscalError('#INVALID_TYPE', { field: 'key', expected: 'text', value: JSON.stringify(value) });
    return value;
  }
  for (const [name, value] of new URLSearchParams(body)) if (name.toLowerCase() === 'key') return value;
  return undefined;
}

export function serviceRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post('/service/restart', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      const control = ctx.control;
      // an app without a running service around it (built for a test) has nothing to restart
      if (!control) throw new FiscalError('#INTERNAL', {});
      // the answer goes out first; the close then waits for it and every other request in flight
      res.raw.once('close', () => void control.stop('request'));
      return res.code(200).send('');
    }),
  );

  app.post('/lic', async (req, res) =>
    guarded(ctx, req, res, 'LicC', async () => {
      const rn = rnOfQuery(ctx, queryOf(req));
      // `def` may get its key before its first transaction; any other register must exist
      if (rn !== 'def' && !ctx.registers.get(rn)) throw new FiscalError('#UNKNOWN_REGISTER', { value: rn });
      const text = keyOf(req);
      if (text === undefined) throw new FiscalError('#MISSING_FIELD', { field: 'key' });
      const { key, replaced } = await storeLicenseKey(ctx.store, rn, text);
      const masked = maskLicenseKey(key);
      req.log.info({ type: 'LICENSE', rn, key: masked, replaced }, 'license key stored');
      return sendDoc(res, formatOf(req), 'LicC', { Result: { RC: 'OK' }, Lic: { RN: rn, Key: masked, Replaced: replaced ? 'true' : 'false' } });
    }),
  );
}
