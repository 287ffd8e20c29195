// A pure function of two states, apart from the event reporter so that record writing, which computes it
// when it seals a record, does not load the reporter and the recorder behind it.
import type { ReportedCode } from './events.js';

/**
 * Events in a register's country state before and after a record (German TSE, `de|...` keys): its
 * initialization (TSE_ACTIVATED), the first operation it did not answer (TSE_FAILURE), and its first answer
 * after a failure (TSE_RECOVERED). Computed when the record is sealed, reported when it is committed.
 */
export function fiscalStateEvents(before: Readonly<Record<string, string>>, after: Readonly<Record<string, string>>): Array<{ code: ReportedCode; detail: string }> {
  const out: Array<{ code: ReportedCode; detail: string }> = [];
  if (before['de|initialized'] !== '1' && after['de|initialized'] === '1') {
    out.push({ code: 'TSE_ACTIVATED', detail: 'software TSE initialized (signature counter 1)' });
  }
  const failedBefore = before['de|failedSince'];
  const failedAfter = after['de|failedSince'];
  if (failedBefore === undefined && failedAfter !== undefined) {
    out.push({ code: 'TSE_FAILURE', detail: `TSE ausgefallen: no answer since unixTime ${failedAfter}` });
  } else if (failedBefore !== undefined && failedAfter === undefined) {
    out.push({ code: 'TSE_RECOVERED', detail: `the TSE answers again (no answer from unixTime ${failedBefore}, ${before['de|failedCount'] ?? '1'} operation(s))` });
  }
  // Austria (RKSV): each cashbox's chain under `<cashbox id>|...`: its start receipt signed (the signature device in
  // use: to be registered at FinanzOnline), a receipt without a signature ("Sicherheitseinrichtung ausgefallen"), and
  // the first signed one after it
  for (const key of Object.keys(after)) {
    const m = /^(.+)\|(started|failed)$/.exec(key);
    if (!m || m[1] === 'de') continue;
    const cashbox = m[1] as string;
    const was = before[key] === '1';
    const is = after[key] === '1';
    if (m[2] === 'started' && !was && is) out.push({ code: 'TSE_ACTIVATED', detail: `signature device of cashbox ${cashbox} in use (start receipt signed)` });
    if (m[2] === 'failed' && !was && is) out.push({ code: 'SIGNATURE_DEVICE_FAILURE', detail: `Sicherheitseinrichtung ausgefallen (cashbox ${cashbox})` });
    if (m[2] === 'failed' && was && !is) out.push({ code: 'SIGNATURE_DEVICE_RECOVERED', detail: `the signature device of cashbox ${cashbox} signs again` });
  }
  return out;
}
