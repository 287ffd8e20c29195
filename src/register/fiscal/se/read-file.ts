/**
 * What `efr verify --country se` reads of a Swedish SAF-T Cash Register file (saxes, one pass): the
 * companyIdent, and per cash register its cashtransactions (the fields the control data is made of, with
 * the VAT blocks of the transaction itself, not of its lines) and its copy events (COPYREC: transID, date,
 * time, text).
 */
import { SaxesParser } from 'saxes';
import { checkElement, putOnce } from '../saft-cash-register/read-registers.js';

export interface SeCashTransaction {
  nr: string;
  transID: string;
  transDate: string;
  transTime: string;
  transAmntIn: string;
  transAmntEx: string;
  signature: string;
  keyVersion: string;
  trainingID: string;
  /** the transaction's VAT blocks as `vatPerc=vatAmnt`, in document order */
  vat: string[];
}

export interface SeCopyEvent {
  eventID: string;
  transID: string;
  eventDate: string;
  eventTime: string;
  eventText: string;
}

export interface SeRegister {
  registerID: string;
  transactions: SeCashTransaction[];
  copies: SeCopyEvent[];
}

export interface SeFile {
  companyIdent: string;
  registers: SeRegister[];
}

const TX_FIELDS = new Set(['nr', 'transID', 'transDate', 'transTime', 'transAmntIn', 'transAmntEx', 'signature', 'keyVersion', 'trainingID']);
const EVENT_FIELDS = new Set(['eventID', 'eventType', 'transID', 'eventDate', 'eventTime', 'eventText']);

/**
 * Reads the file; throws on XML that is not well-formed, whose root is not `{namespace}auditfile`, or that
 * checkElement and putOnce (saft-cash-register/read-registers.ts) refuse.
 */
export function readSwedishFile(text: string, namespace: string): SeFile {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new Error('XML with a DOCTYPE or entity declaration is refused');
  const parser = new SaxesParser({ xmlns: true });
  const registers = new Map<string, SeRegister>();
  const stack: string[] = [];
  const read: Record<string, string> = {};
  let registerRead: Record<string, string> = {};
  let register: SeRegister | undefined;
  let tx: Record<string, string> | undefined;
  let vat: string[] = [];
  let vatBlock: Record<string, string> | undefined;
  let event: Record<string, string> | undefined;
  let field: string | undefined;
  let value = '';
  parser.on('opentag', (tag) => {
    const name = tag.local;
    if (stack.length === 0 && (name !== 'auditfile' || tag.uri !== namespace)) throw new Error(`the root element is {${tag.uri}}${name}, not {${namespace}}auditfile`);
    checkElement(tag, namespace, field);
    const parent = stack[stack.length - 1];
    const path = stack.join('/');
    stack.push(name);
    const capture = (): void => {
      field = name;
      value = '';
    };
    if (name === 'cashregister') {
      register = { registerID: '', transactions: [], copies: [] };
      registerRead = {};
    } else if ((parent === 'cashregister' && name === 'registerID') || (path === 'auditfile/company' && name === 'companyIdent')) capture();
    else if (parent === 'cashregister' && name === 'cashtransaction') {
      tx = {};
      vat = [];
    } else if (parent === 'cashtransaction' && name === 'vat') vatBlock = {};
    else if (parent === 'vat' && vatBlock && stack[stack.length - 3] === 'cashtransaction' && (name === 'vatPerc' || name === 'vatAmnt')) capture();
    else if (parent === 'cashtransaction' && tx && TX_FIELDS.has(name)) capture();
    else if (parent === 'cashregister' && name === 'event') event = {};
    else if (parent === 'event' && event && EVENT_FIELDS.has(name)) capture();
  });
  const onText = (t: string): void => {
    if (field !== undefined) value += t;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', (tag) => {
    stack.pop();
    const name = tag.local;
    const parent = stack[stack.length - 1];
    if (field !== undefined && name === field) {
      if (parent === 'company') putOnce(read, 'companyIdent', value.trim(), 'company');
      else if (parent === 'cashregister' && register) {
        putOnce(registerRead, 'registerID', value.trim(), 'cashregister');
        register.registerID = value.trim();
      } else if (parent === 'vat' && vatBlock) putOnce(vatBlock, field, value.trim(), 'vat');
      else if (parent === 'cashtransaction' && tx) putOnce(tx, field, value.trim(), 'cashtransaction');
      else if (parent === 'event' && event) putOnce(event, field, value, 'event');
      field = undefined;
    } else if (name === 'vat' && parent === 'cashtransaction' && vatBlock) {
      vat.push(`${vatBlock.vatPerc ?? ''}=${vatBlock.vatAmnt ?? ''}`);
      vatBlock = undefined;
    } else if (name === 'cashtransaction' && tx && register) {
      const t = (k: string): string => tx?.[k] ?? '';
      register.transactions.push({
        nr: t('nr'), transID: t('transID'), transDate: t('transDate'), transTime: t('transTime'), transAmntIn: t('transAmntIn'), transAmntEx: t('transAmntEx'),
        signature: t('signature').replace(/\s/g, ''), keyVersion: t('keyVersion'), trainingID: t('trainingID'), vat,
      });
      tx = undefined;
    } else if (name === 'event' && event && register) {
      if ((event.eventType ?? '').trim() === 'COPYREC') {
        register.copies.push({
          eventID: (event.eventID ?? '').trim(), transID: (event.transID ?? '').trim(), eventDate: (event.eventDate ?? '').trim(), eventTime: (event.eventTime ?? '').trim(), eventText: event.eventText ?? '',
        });
      }
      event = undefined;
    } else if (name === 'cashregister' && register) {
      const known = registers.get(register.registerID);
      if (known) {
        known.transactions.push(...register.transactions);
        known.copies.push(...register.copies);
      } else registers.set(register.registerID, register);
      register = undefined;
    }
  });
  parser.on('error', (e) => {
    throw e;
  });
  parser.write(text).close();
  return { companyIdent: read.companyIdent ?? '', registers: [...registers.values()] };
}
