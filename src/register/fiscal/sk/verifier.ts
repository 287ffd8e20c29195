/** `efr verify --country sk --key <certificate.pem> <jou.zip>`: the journal's chain, every receipt's PKP and OKP, offline. */
import type { CountryVerifier } from '../verifiers.js';

export const SK_VERIFIER: CountryVerifier = {
  file: 'jou.zip (GET /export?type=jou)',
  key: "the register's authentication certificate or its public key (PEM), repeatable (one per certificate used)",
  async verify(path, options) {
    // loaded when asked for: the service itself never verifies an export
    const { verifySlovakJournal } = await import('./verify.js');
    return verifySlovakJournal(path, options);
  },
};
