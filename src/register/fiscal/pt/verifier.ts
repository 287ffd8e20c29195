/** `efr verify --country pt`: the SAF-T PT file's document hashes (RSA-SHA1 signatures) and series chains, offline. */
import type { CountryVerifier } from '../verifiers.js';

export const PT_VERIFIER: CountryVerifier = {
  file: 'export.zip or the SAF-T PT XML (GET /export?type=saft)',
  async verify(path) {
    // loaded when asked for: the service itself never verifies an export
    const { verifyExportFile } = await import('./verify.js');
    return verifyExportFile(path);
  },
};
