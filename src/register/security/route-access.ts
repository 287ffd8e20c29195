/**
 * Who may call which route (issue 8, points 2 and 3): the local-or-password rule, browser pages behind the
 * system password (HTTP Basic) or HTTP Digest; the table of every route is in docs/security.md.
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';

export function routeAccessHook(_app: FastifyInstance, _ctx: ServiceContext): void {
  // not built yet
}
