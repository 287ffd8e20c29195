/**
 * `efr verify --country <cc> [--key <pem>]... <file>`: the offline verifier of each country's export, as the
 * country's module declares it; `--key` (where the country's verifier takes it) pins the public key the
 * signatures must be by.
 */
import { countryModules } from './registry.js';

/** What a verifier found: ok, and a text naming the first broken record when not. */
export interface VerifyOutcome {
  ok: boolean;
  text: string;
}

export interface CountryVerifier {
  /** what file it reads, for the usage text */
  file: string;
  /** what `--key <pem>` is, for the verifiers that take it (the usage text); absent: --key is refused */
  key?: string;
  verify(path: string, options?: { keys?: readonly string[] }): Promise<VerifyOutcome>;
}

/** The verifiers by lower-case country code. */
export const VERIFIERS: Readonly<Record<string, CountryVerifier>> = Object.fromEntries(
  countryModules().flatMap((m) => (m.verifier ? [[m.country.toLowerCase(), m.verifier] as const] : [])),
);
