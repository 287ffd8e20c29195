/** `efr verify --country se`: the control unit's signatures of the SAF-T export or of the journal export (receipts and copies), offline, optionally under declared keys. */
import type { CountryVerifier } from '../verifiers.js';

export const SE_VERIFIER: CountryVerifier = {
  file: 'export.zip or the SAF-T Cash Register XML (GET /export?type=saft), or the journal export (type=jou) with --key',
  key: "the control unit's public key (SPKI PEM), repeatable",
  async verify(path, options) {
    // loaded when asked for: the service itself never verifies an export
    const journal = await import('./verify-journal.js');
    if (await journal.isJournalZip(path)) return journal.verifySwedishJournalFile(path, options);
    const { verifySwedishExport } = await import('./verify.js');
    return verifySwedishExport(path, options);
  },
};
