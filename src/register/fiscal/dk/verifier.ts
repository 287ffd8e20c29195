/** `efr verify --country dk`: the Danish SAF-T Cash Register file's signature chains, offline, optionally under a given certificate or key. */
import type { CountryVerifier } from '../verifiers.js';

export const DK_VERIFIER: CountryVerifier = {
  file: 'export.zip or the SAF-T Cash Register XML (GET /export?type=saft)',
  key: 'the expected certificate or public key (PEM), repeatable',
  async verify(path, options) {
    // loaded when asked for: the service itself never verifies an export
    const { verifyDanishExport } = await import('./verify.js');
    return verifyDanishExport(path, options);
  },
};
