/**
 * Registers: GET /api/v1/registers/{registerNumber}, POST /api/v1/registers/search,
 * POST /api/v1/registers/{registerNumber}/deactivate[?dischargeAfter=<date-time>].
 */
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../auth/hook.js';
import type { PortalContext } from '../context.js';
import { okEnvelope } from '../envelope.js';
import { dischargeRegister, getRegister } from '../services/registers.js';
import { type SearchBody, searchRegisters } from '../services/search.js';
import { registerView } from '../services/views.js';
import { DischargeQuery, RegisterOut, RegisterParams, RegisterSearchBody, searchAnswer, withEnvelope } from '../validation/schemas.js';
import { errorResponses, noBodyIsEmptyObject } from './responses.js';

export function registerRoutes(app: FastifyInstance, ctx: PortalContext): void {
  app.get('/api/v1/registers/:registerNumber', { schema: { tags: ['Registers'], operationId: 'get_register', summary: 'Get a register', description: 'Permission: ReadRegister on the owning company.', params: RegisterParams, response: { 200: withEnvelope({ register: RegisterOut }), ...errorResponses } } }, async (req) => {
    const r = await getRegister(ctx, callerOf(req), (req.params as { registerNumber: string }).registerNumber);
    return okEnvelope({ register: registerView(r) });
  });

  app.post('/api/v1/registers/search', { preValidation: noBodyIsEmptyObject, schema: { tags: ['Registers'], operationId: 'search_registers', summary: 'Search registers', description: 'Returns only registers the caller may read (ReadRegister). Default order registerNumber.', body: RegisterSearchBody, response: { 200: searchAnswer(RegisterOut), ...errorResponses } } }, async (req) => {
    const found = await searchRegisters(ctx, callerOf(req), (req.body ?? {}) as SearchBody);
    return okEnvelope({ currentCount: found.currentCount, totalCount: found.totalCount, foundItems: found.foundItems.map(registerView) });
  });

  app.post('/api/v1/registers/:registerNumber/deactivate', { schema: { tags: ['Registers'], operationId: 'deactivate_register', summary: 'Deactivate (discharge) a register', description: 'Permission: ManageRegister. Without dischargeAfter the state becomes Discharged at once; with it (a future date-time) at that time.', params: RegisterParams, querystring: DischargeQuery, response: { 200: withEnvelope({ register: RegisterOut }), ...errorResponses } } }, async (req) => {
    const q = req.query as { dischargeAfter?: string };
    const r = await dischargeRegister(ctx, callerOf(req), (req.params as { registerNumber: string }).registerNumber, q.dischargeAfter);
    return okEnvelope({ register: registerView(r) });
  });
}
