/**
 * Austria's files of a register: the folders of its cashboxes, at/<cashbox>/, with the signature devices
 * (device-<n>/key.pem, certificate.der) and the AES key of the turnover counter; for the cashbox of the Cfg
 * (Fiscal_CashboxId, else TL-TT) and every cashbox the register's state names.
 */
import type { CountryFiles } from '../country-files.js';
import { safeSegment } from '../country-files.js';
import { cashboxIdOf } from './cashbox.js';

export const AT_FILES: CountryFiles = {
  paths(_dataDir, reg) {
    const cashboxes = new Set([cashboxIdOf(reg.attributes, reg.cfg), ...reg.stateSegments]);
    return [...cashboxes].sort().map((id) => ({ path: `at/${safeSegment(id)}` }));
  },
  admits(path) {
    const [top, folder] = path.split('/');
    return top === 'at' && path.split('/').length >= 3 && folder !== undefined && folder === safeSegment(folder);
  },
  ownFolder: (path) => /^at\/[^/]+/.exec(path)?.[0],
};
