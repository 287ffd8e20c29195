/**
 * Portuguese tax numbers (NIF): nine digits, the last a modulo-11 check digit. The company's NIF is the
 * SAF-T TaxRegistrationNumber and field A of the QR code; a customer's NIF field B (999999990 is the
 * "consumidor final", the buyer who gives none).
 */
export const CONSUMIDOR_FINAL = '999999990';

/** Whether nine digits carry a valid check digit. */
export function validNif(nif: string): boolean {
  if (!/^\d{9}$/.test(nif)) return false;
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(nif[i]) * (9 - i);
  const check = 11 - (sum % 11);
  return (check >= 10 ? 0 : check) === Number(nif[8]);
}

/** A tax id as sent (`PT123456789`, `123 456 789`, `DE123456789`): its country prefix, if any, and the number. */
export function splitTaxId(taxId: string): { prefix?: string; number: string } {
  const compact = taxId.replace(/[\s.-]/g, '').toUpperCase();
  const m = /^([A-Z]{2})(.+)$/.exec(compact);
  return m ? { prefix: m[1] as string, number: m[2] as string } : { number: compact };
}

/** The company's NIF from Cfg.Cmp.TaxId (with or without the PT prefix); undefined when it is not a valid NIF. */
export function companyNif(taxId: string | undefined): string | undefined {
  if (!taxId) return undefined;
  const { prefix, number } = splitTaxId(taxId);
  if (prefix !== undefined && prefix !== 'PT') return undefined;
  return validNif(number) ? number : undefined;
}
