/** `efr verify --country se`: the control unit's signatures of the SAF-T export (receipts and copies), offline, optionally under declared keys. */
import type { CountryVerifier } from '../verifiers.js';

export const SE_VERIFIER: CountryVerifier = {
  file: 'export.zip or the SAF-T Cash Register XML (GET /export?type=saft)',
  key: "the control unit's public key (SPKI PEM), repeatable",
  async verify(path, options) {
    // loaded when asked for: the service itself never verifies an export
    const { verifySwedishExport } = await import('./verify.js');
    return verifySwedishExport(path, options);
  },
};
