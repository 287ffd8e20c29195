/**
 * Spain's files of a register: es/<NIF>/, the key of the company (Cfg.Cmp.TaxId, and the NIFs the register's
 * state names). A company's key serves every register of the company: it is the instance's, not the register's.
 */
import { obj, str } from '../../codec/index.js';
import { type CountryFiles, safeSegment } from '../country-files.js';
import { nifOf } from './config.js';

export const ES_FILES: CountryFiles = {
  paths(_dataDir, reg) {
    const nif = nifOf(str(obj(reg.cfg, 'Cmp') ?? {}, 'TaxId'));
    const nifs = new Set([...(nif ? [nif] : []), ...[...reg.stateSegments].filter((s) => nifOf(s) === s)]);
    return [...nifs].sort().map((n) => ({ path: `es/${safeSegment(n)}`, instanceKey: true }));
  },
  admits(path) {
    const parts = path.split('/');
    return parts[0] === 'es' && parts.length >= 3 && parts[1] !== undefined && nifOf(parts[1]) === parts[1];
  },
};
