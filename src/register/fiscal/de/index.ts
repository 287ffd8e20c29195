/**
 * Germany (KassenSichV) with a software TSE: TraS starts a TSE transaction (StartTransaction log), the
 * closing Tra finishes it (FinishTransaction log; a Tra without a started TID starts and finishes in one
 * go). The receipt gets the TSE data to print and the QR code of DSFinV-K. When the TSE does not answer,
 * the transaction is registered all the same, marked "TSE ausgefallen". See docs/countries/de.md.
 */
import { FiscalError } from '../../../shared/errors.js';
import { ZERO, add, dec, eq, fmt, parseDec } from '../../../shared/money.js';
import { type Obj, lines, str } from '../../codec/index.js';
import { formatLocalDateTime, parseLocalDateTime } from '../../esr/datetime.js';
import { GenericModule } from '../generic/index.js';
import type { FiscalInput, FiscalModule, PrepareInput } from '../module.js';
import { DE_LETTERS } from './letters.js';
import { type Operation, OID, logTimeIso, signedPart, transactionLog } from './log-message.js';
import { noteFailure, preambleLogs, signedNow } from './system-events.js';
import { type Tse, openTse } from './tse.js';
import { foreignCurrency, processOf, zahlartOf } from './process.js';
import { DE_EXPORTS } from './exports.js';
import { DE_FILES } from './files.js';
import { runScheduled } from './schedule.js';
import { DE_VERIFIER } from './verifier.js';

/** The VAT rates of the DSFinV-K receipt amounts, in their order: 19, 7, 10.7, 5.5, 0. */
const DSFINV_RATES = ['19', '7', '10.7', '5.5', '0'];

/**
 * processData of a Kassenbeleg-V1 in the DSFinV-K form `<Vorgangstyp>^<gross per rate>^<amount>:<Bar|Unbar>[:<currency>]_...`
 * (a payment in a foreign currency with its foreign amount and code).
 */
export function processData(esr: Obj, bonTyp = 'Beleg'): string {
  const gross = [ZERO, ZERO, ZERO, ZERO, ZERO];
  for (const tax of lines(esr, 'TaxA')) {
    const prc = parseDec(str(tax, 'Prc') ?? '') ?? ZERO;
    const i = DSFINV_RATES.findIndex((r) => eq(dec(r), prc));
    if (i >= 0) gross[i] = add(gross[i] ?? ZERO, parseDec(str(tax, 'Amt') ?? '0') ?? ZERO);
  }
  const byType = new Map<string, typeof ZERO>();
  for (const pay of lines(esr, 'PayA')) {
    const foreign = foreignCurrency(pay);
    const type = (zahlartOf(str(pay, 'PayG')) === 'Bar' ? 'Bar' : 'Unbar') + (foreign ? `:${foreign.replace(/[^A-Za-z0-9]/g, '')}` : '');
    const amt = parseDec(str(pay, foreign ? 'FAmt' : 'Amt') ?? '0') ?? ZERO;
    byType.set(type, add(byType.get(type) ?? ZERO, amt));
  }
  const pays = [...byType].map(([type, amt]) => `${fmt(amt, 2)}:${type}`).join('_');
  return `${bonTyp}^${gross.map((g) => fmt(g, 2)).join('_')}^${pays}`;
}

/** as printed: local time with a space, e.g. 2024-08-01 10:50:30 */
const local = (unix: bigint): string => formatLocalDateTime(new Date(Number(unix) * 1000)).replace('T', ' ');

function unixOf(localDateTime: string | undefined, now: Date): bigint {
  const d = localDateTime ? parseLocalDateTime(localDateTime) : undefined;
  return BigInt(Math.floor((d ?? now).getTime() / 1000));
}

interface Logged {
  message?: Buffer;
  counter: bigint;
  time: bigint;
  signature?: Buffer;
}

export class DeModule implements FiscalModule {
  readonly country = 'DE';
  readonly letters = DE_LETTERS;
  readonly exports = DE_EXPORTS;
  readonly files = DE_FILES;
  readonly verifier = DE_VERIFIER;
  readonly scheduled = runScheduled;
  private readonly generic = new GenericModule('DE', DE_LETTERS);

  validate(): void {
    // the generic rules
  }

  async prepare(input: PrepareInput): Promise<void> {
    openTse(input.dataDir, input.state.rn);
  }

  fiscalize(input: FiscalInput): Obj {
    const { esr, state, bc } = input;
    const c = state.country;
    const tse = openTse(input.dataDir, state.rn);
    // the QR code separates its fields by `;`: a `;` in TL or TT would shift them
    const clientId = `${str(esr, 'TL') ?? ''}/${str(esr, 'TT') ?? '1'}`.replace(/;/g, '-');
    const { processType, bonTyp } = processOf(bc, esr);
    const now = unixOf(undefined, input.now);
    const tidIn = str(esr, 'TID');
    // checks first: nothing of the TSE's state changes before they pass
    if ((input.type === 'TraU' || input.type === 'TraV') && !tidIn) throw new FiscalError('#MISSING_FIELD', { field: 'ESR.TID' });
    if (input.type !== 'TraS' && tidIn && c[`de|open|${tidIn}`] === undefined) {
      throw new FiscalError('#INVALID_VALUE', { field: 'ESR.TID', detail: `TSE transaction ${tidIn} is not open (never started, or finished before)` });
    }
    // before the transaction: the TSE's initialization, the setting of its clock, the audit of a failure
    const initLog = preambleLogs(c, tse, now);
    const log = (operationType: Operation, transactionNumber: bigint, data: string): Logged => {
      const counter = BigInt(c['de|sigCnt'] ?? '0') + 1n;
      const env = { certifiedDataType: OID.transactionLog, serialNumber: tse.serial, signatureCounter: counter, signatureCreationTime: now };
      const t = { operationType, clientId, processData: Buffer.from(data, 'utf8'), processType, transactionNumber };
      const signature = tse.sign(signedPart(env, t));
      if (!signature) {
        noteFailure(c, now);
        return { counter, time: now };
      }
      signedNow(c, counter, now);
      return { message: transactionLog(env, t, signature), counter, time: now, signature };
    };
    if (input.type === 'TraS') {
      const tid = BigInt(c['de|trNr'] ?? '0') + 1n;
      const start = log('StartTransaction', tid, '');
      if (!start.message) {
        // the TSE did not answer: the start is registered with a number of the service; the closing Tra
        // then starts and finishes its TSE transaction in one go (or is marked failed again)
        // (the number is taken from the TSE's sequence, so that it is never the number of a real one)
        c['de|trNr'] = tid.toString();
        c[`de|open|${tid}`] = 'failed';
        return withInit({ ...failed({}, tse), TID: tid.toString(), StartD: str(esr, 'D') ?? local(now) }, initLog);
      }
      c['de|trNr'] = tid.toString();
      c[`de|open|${tid}`] = start.time.toString();
      return withInit({ TID: tid.toString(), StartD: str(esr, 'D') ?? local(start.time), LogStart: start.message.toString('base64') }, initLog);
    }
    if (input.type === 'TraU' || input.type === 'TraV') return withInit(this.updateOrAbort(input, tse, clientId, processType, now, log), initLog);
    const fis = this.generic.fiscalize(input);
    let tid: bigint;
    let startTime: bigint;
    let logStart: Buffer | undefined;
    if (tidIn && c[`de|open|${tidIn}`] === 'failed') delete c[`de|open|${tidIn}`];
    if (tidIn && c[`de|open|${tidIn}`] !== undefined) {
      tid = BigInt(tidIn);
      startTime = BigInt(c[`de|open|${tidIn}`] as string);
    } else {
      tid = BigInt(c['de|trNr'] ?? '0') + 1n;
      const start = log('StartTransaction', tid, '');
      if (!start.message) return withInit(failed(fis, tse), initLog);
      c['de|trNr'] = tid.toString();
      startTime = start.time;
      logStart = start.message;
    }
    const data = processType === 'Kassenbeleg-V1' ? processData(esr, bonTyp) : '';
    const finish = log('FinishTransaction', tid, data);
    // the TSE stopped answering between start and finish: what it signed stays in the journal
    if (!finish.message || !finish.signature) return withInit({ ...failed(fis, tse), ...(logStart ? { LogStart: logStart.toString('base64') } : {}) }, initLog);
    delete c[`de|open|${tid}`];
    const signature = finish.signature.toString('base64');
    const code = ['V0', clientId, processType, data, tid.toString(), finish.counter.toString(), logTimeIso(startTime), logTimeIso(finish.time), 'ecdsa-plain-SHA256', 'unixTime', signature, tse.publicKey.toString('base64')].join(';');
    const out: Obj = {
      ...fis,
      TID: tid.toString(),
      Code: code,
      Tag: [
        { Label: 'TrNr:', Value: tid.toString(), Name: 'FN' },
        { Label: 'Beg.:', Value: local(startTime), Name: 'StartD' },
        { Label: 'Ende:', Value: local(finish.time), Name: 'FinishD' },
        { Label: 'TSE :', Value: tse.serial.toString('hex'), Name: 'Serial' },
        { Label: 'SigZ:', Value: finish.counter.toString(), Name: 'SignCnt' },
        { Label: 'Sign:', Value: signature, Name: 'Sign' },
        { Label: 'KSNr:', Value: clientId, Name: 'KSNr' },
      ],
      LogFinish: finish.message.toString('base64'),
    };
    if (logStart) out.LogStart = logStart.toString('base64');
    return withInit(out, initLog);
  }

  /**
   * TraU: an UpdateTransaction log with the transaction's data so far; it stays open.
   * TraV: the transaction is aborted: finished with the process data `AVBelegabbruch^<gross per rate>^`.
   */
  private updateOrAbort(input: FiscalInput, tse: Tse, clientId: string, processType: string, now: bigint, log: (op: Operation, tid: bigint, data: string) => Logged): Obj {
    const { esr, state } = input;
    const c = state.country;
    const tidText = str(esr, 'TID') as string;
    const tid = BigInt(tidText);
    if (c[`de|open|${tidText}`] === 'failed') {
      if (input.type === 'TraV') delete c[`de|open|${tidText}`];
      return { ...failed({}, tse), TID: tidText };
    }
    const gross = processData(esr).split('^')[1] ?? '0.00_0.00_0.00_0.00_0.00';
    if (input.type === 'TraU') {
      const update = log('UpdateTransaction', tid, lines(esr, 'PosA').length ? processData(esr) : '');
      if (!update.message) return { ...failed({}, tse), TID: tidText };
      return { TID: tidText, D: formatLocalDateTime(new Date(Number(update.time) * 1000)), LogUpdate: update.message.toString('base64') };
    }
    const data = `AVBelegabbruch^${gross}^`;
    const finish = log('FinishTransaction', tid, data);
    if (!finish.message || !finish.signature) return { ...failed({}, tse), TID: tidText };
    const startTime = BigInt(c[`de|open|${tidText}`] ?? now.toString());
    delete c[`de|open|${tidText}`];
    const signature = finish.signature.toString('base64');
    return {
      TID: tidText,
      Code: ['V0', clientId, processType, data, tidText, finish.counter.toString(), logTimeIso(startTime), logTimeIso(finish.time), 'ecdsa-plain-SHA256', 'unixTime', signature, tse.publicKey.toString('base64')].join(';'),
      LogFinish: finish.message.toString('base64'),
    };
  }
}

/** Carries the logs written before the transaction with the record in which they happened (for the export). */
function withInit(fis: Obj, pre: Obj): Obj {
  return { ...fis, ...pre };
}

/** The TSE did not answer: registered all the same, marked as the law wants it printed. */
function failed(fis: Obj, tse: Tse): Obj {
  return { ...fis, Tag: [{ Label: '', Value: 'TSE ausgefallen', Name: 'TSEFailed' }, { Label: 'TSE :', Value: tse.serial.toString('hex'), Name: 'Serial' }] };
}

