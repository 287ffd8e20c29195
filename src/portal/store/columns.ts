/** The column lists both stores select (the search column stays inside the database). */
export const ENTITY_SELECT = [
  'id', 'kind', 'parent_id', 'path', 'name', 'address', 'city', 'zip', 'country_code', 'invoice_email_address', 'user_comment',
  'state', 'test', 'badge', 'tax_id', 'ignore_tax_id', 'country_properties', 'location_identification', 'deactivate_after',
  'created_at', 'updated_at',
].map((c) => `e.${c}`).join(', ');

export const REGISTER_SELECT = [
  'register_number', 'company_id', 'country_code', 'last_tl', 'last_tt', 'user_comment', 'first_transaction', 'last_transaction',
  'version_number', 'state', 'is_cloud_efr', 'discharge_after', 'created_at', 'updated_at',
].map((c) => `r.${c}`).join(', ');

export const CONTACT_SELECT = 'id, company_id, contact_name, email_address, contact_type, language_code, email_address_verification, created_at';
export const NOTIFICATION_SELECT = 'id, register_number, company_id, event_code, level, texts, initial_timestamp, raised_at, closed_at';
export const CLIENT_SELECT = 'client_id, name, secret_hash, created_at, revoked_at';

/** countryProperties and notification texts are stored as JSON; what comes back is checked, not trusted blindly. */
export function stringRecord(value: unknown, what: string): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`stored ${what} is not an object`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw new Error(`stored ${what}.${k} is not a text`);
    out[k] = v;
  }
  return out;
}

export function notificationTexts(value: unknown): Record<string, { short: string; long: string }> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('stored notification texts are not an object');
  const out: Record<string, { short: string; long: string }> = {};
  for (const [lang, t] of Object.entries(value)) {
    const r = stringRecord(t, `notification texts.${lang}`);
    out[lang] = { short: r.short ?? '', long: r.long ?? '' };
  }
  return out;
}
