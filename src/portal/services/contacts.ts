/** Company contacts: create (ManageCompany on the company) and list (ReadCompany). */
import { Issues } from '../envelope.js';
import type { PortalContext } from '../context.js';
import type { Caller } from '../permissions.js';
import type { Contact, ContactType } from '../store/types.js';
import { LANGUAGE_CODE_PATTERN } from '../validation/entity-rules.js';
import { getEntity } from './entities.js';
import { entityWith } from './entity-access.js';

export interface ContactBody {
  companyId: number;
  contactName: string;
  emailAddress: string;
  contactType: ContactType;
  languageCode?: string | null;
}

export async function createContact(ctx: PortalContext, caller: Caller, body: ContactBody): Promise<Contact> {
  const company = await entityWith(ctx, caller, body.companyId, 'company', 'ManageCompany');
  const issues = new Issues();
  if (body.languageCode && !LANGUAGE_CODE_PATTERN.test(body.languageCode)) issues.add('languageCode', 'languageCode');
  issues.throwIfAny();
  return ctx.store.createContact(
    {
      companyId: company.id,
      contactName: body.contactName,
      emailAddress: body.emailAddress,
      contactType: body.contactType,
      languageCode: body.languageCode || null,
      emailAddressVerification: 'Created',
    },
    ctx.clock.now(),
  );
}

export async function listContacts(ctx: PortalContext, caller: Caller, companyId: number): Promise<Contact[]> {
  await getEntity(ctx, caller, companyId, 'company');
  return ctx.store.listContacts(companyId);
}
