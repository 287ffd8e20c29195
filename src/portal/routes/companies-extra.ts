/**
 * Contacts and notifications of a company: POST /api/v1/contacts, GET /api/v1/companies/{companyId}/contacts,
 * GET /api/v1/companies/{companyId}/notifications?languageCode=.
 */
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { callerOf } from '../auth/hook.js';
import type { PortalContext } from '../context.js';
import { okEnvelope } from '../envelope.js';
import { type ContactBody, createContact, listContacts } from '../services/contacts.js';
import { listNotifications } from '../services/notifications.js';
import { contactView } from '../services/views.js';
import { ContactCreate, ContactOut, NotificationOut, NotificationsQuery, idParams, withEnvelope } from '../validation/schemas.js';
import { errorResponses } from './responses.js';

export function companyExtraRoutes(app: FastifyInstance, ctx: PortalContext): void {
  app.post('/api/v1/contacts', { schema: { tags: ['Contacts'], operationId: 'create_contact', summary: 'Create a contact of a company', description: 'Permission: ManageCompany on the company.', body: ContactCreate, response: { 200: withEnvelope({ companyContact: ContactOut }), ...errorResponses } } }, async (req) => {
    const c = await createContact(ctx, callerOf(req), req.body as ContactBody);
    return okEnvelope({ companyContact: contactView(c) });
  });

  app.get('/api/v1/companies/:companyId/contacts', { schema: { tags: ['Contacts'], operationId: 'list_contacts', summary: 'List the contacts of a company', description: 'Permission: ReadCompany.', params: idParams('companyId'), response: { 200: withEnvelope({ contacts: Type.Array(ContactOut) }), ...errorResponses } } }, async (req) => {
    const list = await listContacts(ctx, callerOf(req), (req.params as { companyId: number }).companyId);
    return okEnvelope({ contacts: list.map(contactView) });
  });

  app.get('/api/v1/companies/:companyId/notifications', { schema: { tags: ['Notifications'], operationId: 'list_notifications', summary: 'List the register notifications of a company and its locations', description: 'Permission: ReadCompany. Newest first.', params: idParams('companyId'), querystring: NotificationsQuery, response: { 200: withEnvelope({ notifications: Type.Array(NotificationOut) }), ...errorResponses } } }, async (req) => {
    const q = req.query as { languageCode?: string };
    const list = await listNotifications(ctx, callerOf(req), (req.params as { companyId: number }).companyId, q.languageCode);
    return okEnvelope({ notifications: list });
  });
}
