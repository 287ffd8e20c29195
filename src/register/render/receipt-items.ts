/**
 * The lines of a receipt's PosA as printed: positions, print lines, and every modifier (Mod) right
 * under the position its PN names, in whatever order the POS listed them, since a discount reads as
 * belonging to the line above it. A Mod naming several positions goes under the last of them; one for
 * the whole receipt (`*`) or naming no position goes after all positions; one without PN stays where it
 * was listed (the interface's default: the previous position).
 */
import { type Obj, lines, str } from '../codec/index.js';
import { parseDec } from '../../shared/money.js';
import type { Formatter } from './receipt-format.js';
import { groupOfItem } from './receipt-taxes.js';

export interface ItemView {
  /** pos: a sold (or returned) article; mod: a discount or markup; lin: a print line */
  kind: 'pos' | 'mod' | 'lin';
  pn: string;
  description: string;
  /** "2 x 3,00" when the quantity is not one piece; else '' */
  quantity: string;
  amount: string;
  /** the tax group as the tax table names it */
  taxGroup: string;
  /** a modifier's percentage ("10 %"), else '' */
  percent: string;
  note: string;
  /** '1' for a line voided within the receipt */
  voided: string;
}

function kindOf(line: Obj): ItemView['kind'] {
  const type = str(line, '_') ?? 'Pos';
  return type === 'Lin' ? 'lin' : type === 'Mod' || str(line, 'PTY') === 'Mod' ? 'mod' : 'pos';
}

/** A position number as the tax analysis compares them: a numeric one by its value ("01" is position 1). */
function pnKey(pn: string): string {
  return /^\d+$/.test(pn) ? String(Number(pn)) : pn;
}

/**
 * The positions a Mod's PN names, as the tax analysis (esr/tax.ts) reads it, so that the Mod is printed under
 * the position its amount went to: one PN, a range `1-3` of numeric PNs, or a list `1 3`; numeric PNs by their
 * value; a position without PN has its ordinal. `*` names none here (it goes after all positions).
 */
function namedPositions(pn: string, positions: readonly Obj[]): Obj[] {
  const spec = pn.trim();
  if (spec === '*') return [];
  const keys = positions.map((p, i) => pnKey(str(p, 'PN') ?? String(i + 1)));
  const named = new Set<Obj>();
  for (const token of spec.split(/\s+/)) {
    const range = /^(\d{1,9})-(\d{1,9})$/.exec(token);
    positions.forEach((p, i) => {
      const key = keys[i] as string;
      const hit = range ? /^\d+$/.test(key) && Number(key) >= Number(range[1]) && Number(key) <= Number(range[2]) : key === pnKey(token);
      if (hit) named.add(p);
    });
  }
  return positions.filter((p) => named.has(p));
}

/** The PosA lines in print order (see above). */
export function printOrder(posA: readonly Obj[]): Obj[] {
  const positions = posA.filter((l) => kindOf(l) === 'pos');
  const under = new Map<Obj, Obj[]>();
  const atEnd: Obj[] = [];
  const inPlace = new Set<Obj>();
  for (const line of posA) {
    if (kindOf(line) !== 'mod') continue;
    const pn = str(line, 'PN');
    if (pn === undefined || pn.trim() === '') {
      inPlace.add(line);
      continue;
    }
    const targets = namedPositions(pn, positions);
    const last = targets[targets.length - 1];
    if (last) under.set(last, [...(under.get(last) ?? []), line]);
    else atEnd.push(line);
  }
  const out: Obj[] = [];
  for (const line of posA) {
    const kind = kindOf(line);
    if (kind === 'mod' && !inPlace.has(line)) continue;
    out.push(line, ...(under.get(line) ?? []));
  }
  return [...out, ...atEnd];
}

export function items(esr: Obj, f: Formatter): ItemView[] {
  const taxA = lines(esr, 'TaxA');
  return printOrder(lines(esr, 'PosA')).map((line): ItemView => {
    const kind = kindOf(line);
    const base = { kind, pn: str(line, 'PN') ?? '', description: str(line, 'Dsc') ?? '', quantity: '', amount: '', taxGroup: '', percent: '', note: str(line, 'Note') ?? str(line, 'Info') ?? '', voided: str(line, 'Void') === '1' ? '1' : '' } satisfies ItemView;
    const taxGroup = groupOfItem(str(line, 'TaxG') ?? '', taxA);
    if (kind === 'lin') return { ...base, amount: str(line, 'LAmt') ?? '' };
    if (kind === 'mod') return { ...base, amount: f.amount(str(line, 'Amt')), percent: f.percent(str(line, 'Prc')), taxGroup };
    const qty = str(line, 'Qty');
    const unit = str(line, 'QtyU') ?? '';
    const q = qty !== undefined ? parseDec(qty) : undefined;
    const onePiece = (q === undefined || q.v === 10n ** BigInt(q.s)) && unit === '';
    const quantity = onePiece ? '' : `${f.number(qty ?? '1')}${unit ? ` ${unit}` : ''}${str(line, 'Pri') ? ` x ${f.amount(str(line, 'Pri'))}` : ''}`;
    return { ...base, quantity, amount: f.amount(str(line, 'Amt')), taxGroup };
  });
}
