/**
 * Sweden (skatteförfarandelagen 39 kap., SKVFS 2014:9 on cash registers, SKVFS 2009:2 on control units):
 * every receipt of a register is signed by its control unit (control-unit.ts: the software unit, or a
 * certified unit behind the same interface) over its control data (control-data.ts), chained per register;
 * the receipt prints, in Swedish, its heading (KVITTO, RETURKVITTO, ÖVNINGSKVITTO, KOPIA), the organisation
 * number, the receipt number, the register, the VAT per rate, the control code and the control unit's
 * manufacturing number. A copy is signed too, chained to its original, one per receipt. Login, logout and
 * the X/Z reports are journaled events; the reports print the figures the rules name (day-figures.ts).
 * The export is a SAF-T Cash Register file (saft-xml.ts, export.ts) that `efr verify --country se` checks.
 * See docs/countries/se.md.
 */
import { FiscalError } from '../../../shared/errors.js';
import { type Obj, isObj, obj, str } from '../../codec/index.js';
import type { ServiceContext } from '../../context.js';
import { type BusinessCase, classify } from '../../esr/business-case.js';
import { formatLocalDateTime } from '../../esr/datetime.js';
import { appendRecord } from '../../record-writer.js';
import type { Register } from '../../registers.js';
import { GenericModule } from '../generic/index.js';
import type { FiscalInput, FiscalModule, PrepareInput, ServiceEvent } from '../module.js';
import { cashTransType, signedAmounts } from '../saft-cash-register/cash-transaction.js';
import { ORG_NR, REGISTER_ID, type ReceiptType, checkRegisterId, controlCodeOf, controlData, orgNrOf, printedOrgNr, registerIdOf, signingOrgNr, vatOf } from './control-data.js';
import { type ControlUnit, type ControlUnitOpener, isSoftwareUnitId, openControlUnit } from './control-unit.js';
import { type Counts, addCopy, addReceipt, closeDay, dayOf, grandOf, reportTags } from './day-figures.js';
import { exportSaft } from './export.js';
import { SE_FILES } from './files.js';
import { SE_LETTERS } from './letters.js';
import { SE_VERIFIER } from './verifier.js';

/** Business cases that are events, not receipts: journaled, never signed. */
const EVENT_KINDS = new Set(['login', 'logout', 'xreport', 'closing', 'nonfiscal']);

const HEADING: Readonly<Record<string, string>> = {
  return: 'RETURKVITTO',
  void: 'RETURKVITTO',
  payin: 'INSÄTTNING VÄXELKASSA',
  payout: 'UTTAG VÄXELKASSA',
  xreport: 'X-DAGRAPPORT',
  closing: 'Z-DAGRAPPORT',
  reprint: 'KOPIA',
};

/** The heading printed first: the kind of receipt; a training receipt and a copy marked as the rules want. */
function headingOf(kind: string, training: boolean): string {
  if (training) return kind === 'xreport' || kind === 'closing' || kind === 'reprint' ? `ÖVNING – ${HEADING[kind] ?? ''}` : 'ÖVNINGSKVITTO';
  return HEADING[kind] ?? 'KVITTO';
}

/** What a signed receipt is in the X/Z figures: training only as training, the change float apart from the sales. */
function countsAs(bc: BusinessCase, training: boolean): Counts {
  if (training) return 'training';
  if (bc.kind === 'payin' || bc.kind === 'payout') return bc.kind;
  if (bc.kind === 'return' || bc.kind === 'void') return 'return';
  return bc.fiscal ? 'sale' : 'other';
}

/** The state's keys of the module: the receipt number, the chain's last signature, the control unit used last. */
const NR = 'se|nr';
const SIG = 'se|sig';
const UNIT = 'se|unit';

export class SeModule implements FiscalModule {
  readonly country: string = 'SE';
  readonly letters = SE_LETTERS;
  readonly exports = { saft: exportSaft };
  readonly files = SE_FILES;
  readonly verifier = SE_VERIFIER;
  private readonly generic = new GenericModule('SE', SE_LETTERS);

  /** `openUnit`: the register's control unit; the software unit unless a certified unit's driver is given */
  constructor(private readonly openUnit: ControlUnitOpener = openControlUnit) {}

  validate(esr: Obj, bc: BusinessCase): void {
    // net prices (TaxN) are not what the signed amounts and the export's lines are made of
    if (str(esr, 'TaxN') === '1') throw new FiscalError('#INVALID_VALUE', { field: 'ESR.TaxN', detail: 'Swedish receipts carry gross amounts (incl. VAT); TaxN=1 is not supported' });
    // a copy names its receipt: one copy per receipt
    if (bc.kind === 'reprint' && !str(esr, 'RFN') && !str(esr, 'RTN')) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.RFN' });
  }

  /** A receipt needs the organisation number and an answering control unit: refused before anything is journaled. */
  prepare(input: PrepareInput): Promise<void> {
    const bc = classify(input.esr);
    if (!EVENT_KINDS.has(bc.kind)) {
      signingOrgNr(input.state);
      checkRegisterId(registerIdOf(input.state));
      this.unit(input.dataDir, input.state);
    }
    return Promise.resolve();
  }

  /** The register's control unit; #DEVICE_FAILED when it does not answer (no receipt without it). */
  private unit(dataDir: string, state: { rn: string; country: Record<string, string> }): ControlUnit {
    const last = state.country[UNIT];
    const unit = this.openUnit(dataDir, state.rn, last === undefined);
    if (!unit.available()) throw new FiscalError('#DEVICE_FAILED', { value: `${unit.id} (the control unit)` });
    // a software unit is its key: another one under a register that signed is its key replaced, which is never done silently
    if (last !== undefined && last !== unit.id && isSoftwareUnitId(last) && isSoftwareUnitId(unit.id)) {
      throw new FiscalError('#DEVICE_FAILED', { value: `${unit.id} (the control unit's key is not the key of ${last}, which signed the register's receipts: restore that key from a backup)` });
    }
    return unit;
  }

  fiscalize(input: FiscalInput): Obj {
    const { esr, bc, state } = input;
    if (input.type !== 'Tra') return this.generic.fiscalize(input);
    const fisD = formatLocalDateTime(input.now);
    const training = bc.flags.includes('test') || bc.kind === 'training';
    const registerId = registerIdOf(state);
    if (EVENT_KINDS.has(bc.kind)) {
      const fis: Obj = { D: fisD };
      if (training) fis.Training = '1';
      if (bc.kind === 'xreport' || bc.kind === 'closing') {
        const tags: Obj[] = [{ Name: 'Heading', Label: '', Value: headingOf(bc.kind, training) }];
        const org = this.orgNr(state.cfg);
        if (org) tags.push({ Name: 'OrgNr', Label: 'Org.nr', Value: printedOrgNr(org) });
        tags.push({ Name: 'RegisterId', Label: 'Kassa', Value: registerId });
        const serial = str(obj(state.cfg, 'Trm') ?? {}, 'Serial');
        if (serial) tags.push({ Name: 'RegisterSerial', Label: 'Kassans tillverkningsnr', Value: serial });
        if (state.country[UNIT]) tags.push({ Name: 'SignDevId', Label: 'Kontrollenhet', Value: state.country[UNIT] });
        // the Z's own number (the pipeline counts it after this call)
        if (bc.kind === 'closing' && !training) tags.push({ Name: 'ZNo', Label: 'Z-dagrapport nr', Value: String(state.zi + 1) });
        tags.push(...reportTags(dayOf(state.country), grandOf(state.country)));
        fis.Tag = tags;
        if (bc.kind === 'closing' && !training) closeDay(state.country);
      }
      return fis;
    }
    const orgNr = signingOrgNr(state);
    checkRegisterId(registerId);
    const unit = this.unit(input.dataDir, state);
    const d = str(esr, 'D') ?? fisD;
    if (bc.kind === 'reprint') return this.copy(input, unit, orgNr, registerId, fisD, training);

    // a receipt: the next number, signed onto the register's chain by the control unit
    const type: ReceiptType = training ? 'ovning' : 'normal';
    const { total, amntIn, amntEx } = signedAmounts(esr);
    const nr = String(Number(state.country[NR] ?? '0') + 1);
    const fields = {
      prev: state.country[SIG] ?? '0', orgNr, registerId, date: d.slice(0, 10), time: d.slice(11, 19), nr, type, amntIn, amntEx, vat: vatOf(esr),
    };
    const signature = this.signed(unit, controlData(fields));
    state.country[NR] = nr;
    state.country[SIG] = signature;
    state.country[UNIT] = unit.id;
    state.country[REGISTER_ID] = registerId;
    state.country[ORG_NR] = orgNr;
    addReceipt(state.country, esr, countsAs(bc, training));
    const code = controlCodeOf(signature);
    const fis: Obj = {
      D: fisD,
      FN: nr,
      TransID: String(input.sq),
      TransType: cashTransType(bc.kind, training, total),
      RegisterID: registerId,
      CompanyIdent: orgNr,
      TransDate: fields.date,
      TransTime: fields.time,
      AmntIn: amntIn,
      AmntEx: amntEx,
      Vat: fields.vat,
      ReceiptType: type,
      Signature: signature,
      KeyVersion: unit.id,
      ControlCode: code,
      ControlUnit: unit.id,
    };
    if (training) fis.Training = '1';
    fis.Tag = this.tags(state, esr, headingOf(bc.kind, training), orgNr, nr, code, unit.id);
    return fis;
  }

  /** A copy (kvittokopia): one per receipt, signed as `kopia` over its original, with the original's number. */
  private copy(input: FiscalInput, unit: ControlUnit, orgNr: string, registerId: string, fisD: string, training: boolean): Obj {
    const { esr, state } = input;
    const original = input.original && isObj(input.original.Fis) ? input.original.Fis : undefined;
    const nr = original ? str(original, 'FN') : undefined;
    const origSig = original ? str(original, 'Signature') : undefined;
    // only a receipt its control unit signed: one the register made before it was Swedish has no control data to copy
    if (!original || !nr || !origSig || !str(original, 'ReceiptType')) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.RFN', detail: `no receipt ${str(esr, 'RFN') ?? str(esr, 'RTN') ?? ''} of this register to copy` });
    // one copy of a receipt (SKVFS 2014:9: no more than one kvittokopia)
    if ((input.reprints ?? 0) >= 1) throw new FiscalError('#INVALID_VALUE', { field: 'ESR.RFN', detail: 'Sweden allows one copy of a receipt, and this receipt was copied already' });
    const fields = {
      prev: origSig, orgNr, registerId, date: fisD.slice(0, 10), time: fisD.slice(11, 19), nr, type: 'kopia' as const,
      amntIn: str(original, 'AmntIn') ?? '0.00', amntEx: str(original, 'AmntEx') ?? '0.00', vat: str(original, 'Vat') ?? '',
    };
    const signature = this.signed(unit, controlData(fields));
    state.country[UNIT] = unit.id;
    // a copy of a training receipt, or one made in training mode, is training: never a copy of a sale
    const asTraining = training || str(original, 'ReceiptType') === 'ovning';
    addCopy(state.country, str(original, 'AmntIn'), asTraining);
    const code = controlCodeOf(signature);
    const fis: Obj = { D: fisD, RFN: nr, RegisterID: registerId, CopySignature: signature, ControlCode: code, ControlUnit: unit.id };
    if (asTraining) fis.Training = '1';
    const originalEsr = input.original && isObj(input.original.ESR) ? input.original.ESR : esr;
    fis.Tag = this.tags(state, originalEsr, headingOf('reprint', asTraining), orgNr, nr, code, unit.id);
    return fis;
  }

  /** The control unit's signature (base64) of the control data; #DEVICE_FAILED when it gives none: no receipt without its control code. */
  private signed(unit: ControlUnit, data: string): string {
    const signed = unit.sign(Buffer.from(data, 'utf8'));
    if (!signed || signed.length === 0) throw new FiscalError('#DEVICE_FAILED', { value: `${unit.id} (the control unit)` });
    return signed.toString('base64');
  }

  /** The printed lines of a receipt, in Swedish. */
  private tags(state: FiscalInput['state'], esr: Obj, heading: string, orgNr: string, nr: string, code: string, unitId: string): Obj[] {
    const tags: Obj[] = [{ Name: 'Heading', Label: '', Value: heading }];
    tags.push({ Name: 'OrgNr', Label: 'Org.nr', Value: printedOrgNr(orgNr) });
    tags.push({ Name: 'FN', Label: 'Kvittonr', Value: nr });
    tags.push({ Name: 'RegisterId', Label: 'Kassa', Value: registerIdOf(state) });
    const serial = str(obj(state.cfg, 'Trm') ?? {}, 'Serial');
    if (serial) tags.push({ Name: 'RegisterSerial', Label: 'Kassans tillverkningsnr', Value: serial });
    const vat = vatOf(esr);
    for (const part of vat ? vat.split(',') : []) {
      const [rate, amt] = part.split('=');
      tags.push({ Name: 'Vat', Label: `Moms ${rate ?? ''} %`, Value: amt ?? '' });
    }
    tags.push({ Name: 'Fiscal', Label: 'Kontrollkod', Value: code });
    tags.push({ Name: 'SignDevId', Label: 'Kontrollenhet', Value: unitId });
    return tags;
  }

  /** The organisation number where a report prints it, none when Cfg has none yet. */
  private orgNr(cfg: Obj): string | undefined {
    try {
      return orgNrOf(cfg);
    } catch {
      return undefined;
    }
  }

  /** The start and stop of the service are journaled (the export's POS start and shut-down events). */
  async serviceEvent(ctx: ServiceContext, reg: Register, event: ServiceEvent): Promise<void> {
    const d = formatLocalDateTime(ctx.clock.now());
    await appendRecord(ctx, reg, { type: 'log', data: { TS: d, Event: event }, index: { d } }, undefined, true);
  }
}
