/** The stored rows as the API shows them (field names of the spec). */
import type { Contact, Entity, Register } from '../store/types.js';

const common = (e: Entity) => ({
  id: e.id,
  parentEntityId: e.parentId,
  name: e.name,
  address: e.address,
  city: e.city,
  zip: e.zip,
  countryCode: e.countryCode,
  invoiceEmailAddress: e.invoiceEmailAddress,
  userComment: e.userComment,
  state: e.state,
  isTest: e.test,
  deactivateAfterTimestamp: e.deactivateAfter,
  creationTimestamp: e.createdAt,
  lastModifiedTimestamp: e.updatedAt,
});

export const organizationView = (e: Entity) => ({ ...common(e), badge: e.badge, countryProperties: e.countryProperties });
export const companyView = (e: Entity) => ({ ...common(e), badge: e.badge, taxId: e.taxId, ignoreTaxId: e.ignoreTaxId, countryProperties: e.countryProperties });
export const locationView = (e: Entity) => ({ ...common(e), locationIdentification: e.locationIdentification ?? '' });

export function entityView(e: Entity): ReturnType<typeof organizationView> | ReturnType<typeof companyView> | ReturnType<typeof locationView> {
  return e.kind === 'organization' ? organizationView(e) : e.kind === 'company' ? companyView(e) : locationView(e);
}

export const registerView = (r: Register) => ({
  registerNumber: r.registerNumber,
  parentEntityId: r.companyId,
  countryCode: r.countryCode,
  lastTL: r.lastTL,
  lastTT: r.lastTT,
  userComment: r.userComment,
  firstTransaction: r.firstTransaction,
  lastTransaction: r.lastTransaction,
  versionNumber: r.versionNumber,
  state: r.state,
  isCloudEFR: r.isCloudEFR,
  dischargeAfterTimestamp: r.dischargeAfter,
  creationTimestamp: r.createdAt,
});

export const contactView = (c: Contact) => ({
  id: c.id,
  companyId: c.companyId,
  contactName: c.contactName,
  emailAddress: c.emailAddress,
  contactType: c.contactType,
  languageCode: c.languageCode,
  emailAddressVerification: c.emailAddressVerification,
  creationTimestamp: c.createdAt,
});
