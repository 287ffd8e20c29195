/** `efr verify --country fr`: the NF525 export's signature chains, or the journal export's chains and seal, offline. */
import type { CountryVerifier } from '../verifiers.js';

export const FR_VERIFIER: CountryVerifier = {
  file: 'export.xml or jou.zip (GET /export?type=nf525-export or nf525-jou)',
  async verify(path) {
    // loaded when asked for: the service itself never verifies an export
    const { verifyExportFile } = await import('./verify.js');
    return verifyExportFile(path);
  },
};
