/** `efr verify --country es`: each Veri*factu record's fingerprint (Huella), its chain and its totals, offline. */
import type { CountryVerifier } from '../verifiers.js';

export const ES_VERIFIER: CountryVerifier = {
  file: 'export.zip (GET /export?type=verifactu)',
  async verify(path) {
    // loaded when asked for: the service itself never verifies an export
    const { verifyExportFile } = await import('./verify.js');
    return verifyExportFile(path);
  },
};
