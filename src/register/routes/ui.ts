/**
 * The browser pages: Profile at the base address, base data (/ui/cfg), status (/control), journal
 * (/ui/journal), and what they share (/ui/style.css). Each page is its own module in src/register/ui/pages/.
 * Who may open them is in the access table (security/route-access.ts, rule admin-page).
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';
import { UI_CSS } from '../ui/style.js';

export type UiPageRoutes = (app: FastifyInstance, ctx: ServiceContext) => void;

export function uiRoutes(app: FastifyInstance, ctx: ServiceContext, pages: readonly UiPageRoutes[]): void {
  app.get('/ui/style.css', async (_req, res) => res.code(200).type('text/css; charset=utf-8').header('cache-control', 'max-age=3600').send(UI_CSS));
  for (const register of pages) register(app, ctx);
}
