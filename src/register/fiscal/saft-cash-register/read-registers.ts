/** The cash registers and their cashtransactions' fields as a SAF-T Cash Register file has them. */
import { SaxesParser } from 'saxes';

/** The texts of one register's cashtransactions, as read: field name -> text (untrimmed). */
export interface RawRegister {
  registerID: string;
  transactions: Array<Record<string, string>>;
}

/**
 * Refuses an element that a namespace-aware reader of the file sees otherwise than this one: the schema puts
 * every element in the file's namespace (one of another namespace is skipped by such a reader), and gives the
 * fields read here text only (`openField`: the field being read, when `tag` opens inside it).
 */
export function checkElement(tag: { uri: string; local: string }, namespace: string, openField: string | undefined): void {
  if (tag.uri !== namespace) throw new Error(`the element {${tag.uri}}${tag.local} is not in the file's namespace ${namespace}`);
  if (openField !== undefined) throw new Error(`<${openField}> holds an element <${tag.local}>`);
}

/** Sets a field read once: a second one is refused, as a reader taking the first would see another value than the one verified. */
export function putOnce(into: Record<string, string>, field: string, value: string, parent: string): void {
  if (into[field] !== undefined) throw new Error(`a ${parent} has <${field}> twice`);
  into[field] = value;
}

/**
 * Reads company/companyIdent and the cash registers with the direct children `fields` of their
 * cashtransactions (document order; ctLine has an `nr` of its own) from SAF-T Cash Register XML text with
 * saxes. A register under more than one location is one (its chain is one). Throws on XML that is not
 * well-formed, whose root is not `{namespace}auditfile`, or that checkElement and putOnce refuse.
 */
export function readSaftCashRegisters(text: string, namespace: string, fields: ReadonlySet<string>): { companyIdent: string; registers: RawRegister[] } {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new Error('XML with a DOCTYPE or entity declaration is refused');
  const parser = new SaxesParser({ xmlns: true });
  const registers = new Map<string, RawRegister>();
  const stack: string[] = [];
  const read: Record<string, string> = {};
  let registerRead: Record<string, string> = {};
  let register: RawRegister | undefined;
  let trans: Record<string, string> | undefined;
  let field: string | undefined;
  let fieldText = '';
  parser.on('opentag', (tag) => {
    const name = tag.local;
    if (stack.length === 0 && (name !== 'auditfile' || tag.uri !== namespace)) {
      throw new Error(`the root element is {${tag.uri}}${name}, not {${namespace}}auditfile`);
    }
    checkElement(tag, namespace, field);
    const parent = stack[stack.length - 1];
    const path = stack.join('/');
    stack.push(name);
    if (name === 'cashregister') {
      register = { registerID: '', transactions: [] };
      registerRead = {};
    }
    else if ((parent === 'cashregister' && name === 'registerID') || (path === 'auditfile/company' && name === 'companyIdent')) {
      field = name;
      fieldText = '';
    } else if (parent === 'cashregister' && name === 'cashtransaction') trans = {};
    else if (parent === 'cashtransaction' && trans && fields.has(name)) {
      field = name;
      fieldText = '';
    }
  });
  const onText = (t: string): void => {
    if (field !== undefined) fieldText += t;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', (tag) => {
    stack.pop();
    const name = tag.local;
    if (field !== undefined && name === field) {
      const parent = stack[stack.length - 1];
      if (parent === 'company') putOnce(read, 'companyIdent', fieldText.trim(), 'company');
      else if (parent === 'cashregister' && register) {
        putOnce(registerRead, 'registerID', fieldText.trim(), 'cashregister');
        register.registerID = fieldText.trim();
      } else if (trans) putOnce(trans, field, fieldText, 'cashtransaction');
      field = undefined;
    } else if (name === 'cashtransaction' && trans && register) {
      register.transactions.push(trans);
      trans = undefined;
    } else if (name === 'cashregister' && register) {
      // one register may appear under more than one location: its chain is one
      const known = registers.get(register.registerID);
      if (known) known.transactions.push(...register.transactions);
      else registers.set(register.registerID, register);
      register = undefined;
    }
  });
  parser.on('error', (e) => {
    throw e;
  });
  parser.write(text).close();
  return { companyIdent: read.companyIdent ?? '', registers: [...registers.values()] };
}
