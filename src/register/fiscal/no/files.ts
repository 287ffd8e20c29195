/**
 * Norway's files of a register: the key that signs the SAF-T Cash Register chains (keys/no-saft-rsa1024.pem);
 * a new key could not sign on under the same key version. It serves every Norwegian register: the instance's.
 */
import type { CountryFiles } from '../country-files.js';

const KEY = 'keys/no-saft-rsa1024.pem';

export const NO_FILES: CountryFiles = {
  paths: () => [{ path: KEY, instanceKey: true }],
  admits: (path) => path === KEY,
};
