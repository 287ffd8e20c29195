/** Routes of issue 7 (render): PLACEHOLDER, written by its helper. */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';

export function renderRoutes(_app: FastifyInstance, _ctx: ServiceContext): void {
  // registered by the helper
}
