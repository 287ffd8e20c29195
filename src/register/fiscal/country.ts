import { type Obj, obj, str } from '../codec/index.js';

/** The country of a register's configuration (Cfg.Cmp.Ctry), upper case; '' when none is configured. */
export function countryOf(cfg: Obj): string {
  const cmp = obj(cfg, 'Cmp');
  return (cmp ? str(cmp, 'Ctry') ?? '' : '').toUpperCase();
}
