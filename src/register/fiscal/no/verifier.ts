/** `efr verify --country no`: the SAF-T Cash Register file's signature chains, offline, optionally under declared keys. */
import type { CountryVerifier } from '../verifiers.js';

export const NO_VERIFIER: CountryVerifier = {
  file: 'export.zip or the SAF-T Cash Register XML (GET /export?type=saft)',
  key: 'the declared public key (SPKI PEM), repeatable',
  async verify(path, options) {
    // loaded when asked for: the service itself never verifies an export
    const { verifyExportFile } = await import('./verify.js');
    return verifyExportFile(path, options);
  },
};
