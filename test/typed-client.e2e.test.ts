/**
 * Every response type read as a statically typed POS client reads it: strict, case-sensitive models (whole
 * numbers as integers, booleans as booleans, strings as strings, arrays as arrays), and the XML form of each
 * response equivalent to its JSON form (the same fields and values once both are read as text).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Obj, type Value, decodeBody } from '../src/register/codec/index.js';
import { type HttpAnswer, type TestService, get, post, sale, startTestService } from './helpers.js';

/** A field's type as a typed client declares it; `?` marks an optional field. */
type FieldType = 'int' | 'number' | 'string' | 'bool' | 'object' | 'string[]' | Model | [Model];
interface Model {
  [field: string]: FieldType;
}

/** Reads `value` with `model` as a typed client would; names the first field that would not deserialize. */
function readTyped(value: unknown, model: Model, path: string): void {
  assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), `${path}: an object`);
  const o = value as Record<string, unknown>;
  for (const [key, type] of Object.entries(model)) {
    const optional = key.endsWith('?');
    const name = optional ? key.slice(0, -1) : key;
    const v = o[name];
    const at = `${path}.${name}`;
    if (v === undefined) {
      assert.ok(optional, `${at} is missing (names are case-sensitive: ${Object.keys(o).join(', ')})`);
      continue;
    }
    if (type === 'int') assert.ok(Number.isInteger(v), `${at}: a whole number, not ${JSON.stringify(v)}`);
    else if (type === 'number') assert.equal(typeof v, 'number', `${at}: a number, not ${JSON.stringify(v)}`);
    else if (type === 'string') assert.equal(typeof v, 'string', `${at}: a string, not ${JSON.stringify(v)}`);
    else if (type === 'bool') assert.equal(typeof v, 'boolean', `${at}: a boolean, not ${JSON.stringify(v)}`);
    else if (type === 'object') assert.ok(typeof v === 'object' && v !== null && !Array.isArray(v), `${at}: an object`);
    else if (type === 'string[]') assert.ok(Array.isArray(v) && v.every((x) => typeof x === 'string'), `${at}: an array of strings`);
    else if (Array.isArray(type)) {
      assert.ok(Array.isArray(v), `${at}: an array`);
      v.forEach((item, i) => readTyped(item, type[0], `${at}[${i}]`));
    } else readTyped(v, type, at);
  }
}

const RESULT: Model = { RC: 'string', 'ErrorCode?': 'string', 'UserMessage?': 'string', 'Warning?': 'string[]' };
const TAG: Model = { Name: 'string', Value: 'string', 'Label?': 'string' };
const TRA_ANSWER: Model = { SQ: 'int', Result: RESULT, ESR: { 'D?': 'string', 'TN?': 'string', 'FN?': 'string' }, Fis: { 'FN?': 'string', 'TID?': 'int', 'Code?': 'string', 'Tag?': [TAG] } };
const MODELS: Readonly<Record<string, Model>> = {
  TraC: TRA_ANSWER,
  TraSC: { SQ: 'int', Result: RESULT, Fis: { TID: 'int', StartD: 'string' } },
  TraUC: { SQ: 'int', Result: RESULT, Fis: { TID: 'int' } },
  TraVC: { SQ: 'int', Result: RESULT, Fis: { TID: 'int' } },
  AuditC: { SQ: 'int', Result: RESULT },
  CfgC: { SQ: 'int', Result: RESULT, ESR: { D: 'string' }, Fis: { Payload: 'string', Signature: 'string' } },
  ProfileC: { Result: RESULT, Profile: { Badge: 'string', 'TaxId?': 'string', RN_TT: 'bool', PasswordSet: 'bool', Attributes: 'string' } },
  Profile: { Badge: 'string', 'TaxId?': 'string', RN_TT: 'bool', PasswordSet: 'bool', Attributes: 'string' },
  Cfg: { Cmp: { Nam: 'string', Ctry: 'string', 'TaxId?': 'string' } },
  Find: { Count: 'string', Records: [{ _: 'string', SQ: 'int', RN: 'string', Hash: 'string' }] },
};
const STATE: Model = {
  pid: 'int', arch: 'string', uptime: 'int', name: 'string', version: 'string', manifest: 'string', Country: 'string', Online: 'bool',
  Recorder: 'string', RN: 'string', RecSent: 'int', RecQueued: 'int', RetryQueued: 'int', TimeOffset: 'number', D: 'string',
  DiskUsage: 'number', DiskQuota: 'number', Company: 'string', EnvSettings: 'object',
};

/** A JSON answer as text only, the form both encodings share (an empty object is an empty element). */
function asText(v: unknown): Value {
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(asText) as Value;
  if (Object.keys(v as object).length === 0) return '';
  const out: Obj = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = asText(x);
  return out;
}

/**
 * Reads both forms of an answer: typed JSON, and XML equivalent to it. `askAgain` asks for the same answer in
 * XML (the same request again, or GET /last for the record a registration made); by default `ask` again.
 */
async function bothForms(ask: (headers: Record<string, string>) => Promise<HttpAnswer>, root: string, model: Model, askAgain = ask): Promise<Record<string, unknown>> {
  const json = await ask({ accept: 'application/json' });
  assert.ok(json.status < 300, `${root}: ${json.text}`);
  const typed = root === 'State' ? json.json : json.json[root];
  readTyped(typed, model, root);
  const xml = await askAgain({ accept: 'application/xml' });
  const doc = decodeBody(xml.text, 'application/xml', root);
  assert.equal(doc.root, root, xml.text);
  assert.deepEqual(doc.body, asText(typed), `${root}: the XML form says what the JSON form says`);
  return typed as Record<string, unknown>;
}

describe('a typed client reads every answer, and XML says what JSON says', () => {
  let svc: TestService;
  let de: TestService;
  before(async () => {
    [svc, de] = await Promise.all([startTestService(), startTestService()]);
    await post(`${de.url}/cfg`, { Cfg: { Cmp: { Nam: 'Demo', Ctry: 'DE', TaxId: 'DE123456789' } } });
  });
  after(async () => {
    await Promise.all([svc.stop(), de.stop()]);
  });

  test('CfgC, Cfg, ProfileC, Profile and the state record', async () => {
    const cfg = { Cfg: { Cmp: { Nam: 'Café Müller', Adr: 'Ring 1', Zip: '1010', City: 'Wien', Ctry: 'AT', TaxId: 'ATU12345678' } } };
    await bothForms((h) => post(`${svc.url}/cfg`, cfg, h), 'CfgC', MODELS.CfgC as Model, (h) => get(`${svc.url}/last?_=Cfg`, h));
    await bothForms((h) => get(`${svc.url}/cfg`, h), 'Cfg', MODELS.Cfg as Model);
    await bothForms((h) => post(`${svc.url}/profile`, { Badge: 'B-1', RN_TT: false, Attributes: 'Fis_Tot' }, h), 'ProfileC', MODELS.ProfileC as Model);
    await bothForms((h) => get(`${svc.url}/profile`, h), 'Profile', MODELS.Profile as Model);
    const json = (await get(`${svc.url}/state`)).json;
    readTyped(json, STATE, 'state');
    const xml = decodeBody((await get(`${svc.url}/state`, { accept: 'application/xml' })).text, 'application/xml', 'State');
    assert.equal(xml.root, 'State');
    for (const [k, v] of Object.entries(json)) {
      // uptime, D and DiskUsage move between the two requests
      if (['uptime', 'D', 'DiskUsage'].includes(k)) continue;
      assert.deepEqual(xml.body[k], asText(v), `State.${k}`);
    }
  });

  test('TraC of a sale, its #DUPLICATE, AuditC and Find', async () => {
    const last = (type: string) => (h: Record<string, string>) => get(`${svc.url}/last?_=${type}`, h);
    await post(`${svc.url}/profile`, { Badge: 'B-1', Attributes: '' });
    const tra = await bothForms((h) => post(`${svc.url}/register`, sale({ TN: 'T-1' }), h), 'TraC', MODELS.TraC as Model, last('Tra'));
    assert.equal(typeof (tra.Fis as { Signature: unknown }).Signature, 'string');
    // the answer to a resent receipt (#DUPLICATE) in both forms
    await bothForms((h) => post(`${svc.url}/register`, sale({ TN: 'T-1' }), h), 'TraC', MODELS.TraC as Model);
    await bothForms((h) => post(`${svc.url}/register`, { Audit: { TY: 'note', Txt: 'typed' } }, h), 'AuditC', MODELS.AuditC as Model, last('Audit'));
    await bothForms((h) => get(`${svc.url}/find?tn=T-1`, h), 'Find', MODELS.Find as Model);
  });

  test('an error answer of a transaction and of a route', async () => {
    const bad = await bothForms(async (h) => {
      const r = await post(`${svc.url}/register`, sale({ T: '1.00' }), h);
      assert.equal(r.status, 400);
      return { ...r, status: 200 };
    }, 'TraC', { 'SQ?': 'int', Result: RESULT });
    assert.equal((bad.Result as { RC: string }).RC, 'BAD');
    await bothForms(async (h) => ({ ...(await get(`${svc.url}/export?rn=def`, h)), status: 200 }), 'Result', RESULT);
  });

  test('TraSC, TraUC, TraVC and the German TraC with TID', async () => {
    const last = (type: string) => (h: Record<string, string>) => get(`${de.url}/last?_=${type}`, h);
    const started = await bothForms((h) => post(`${de.url}/register`, { TraS: { ESR: { TL: '001', TT: '1' } } }, h), 'TraSC', MODELS.TraSC as Model, last('TraS'));
    const tid = (started.Fis as { TID: number }).TID;
    await bothForms((h) => post(`${de.url}/register`, { TraU: { ESR: { TL: '001', TT: '1', TID: tid } } }, h), 'TraUC', MODELS.TraUC as Model, last('TraU'));
    await bothForms((h) => post(`${de.url}/register`, { TraV: { ESR: { TL: '001', TT: '1', TID: tid } } }, h), 'TraVC', MODELS.TraVC as Model, last('TraV'));
    const closing = await bothForms((h) => post(`${de.url}/register`, sale({ TL: '001', TT: '1' }), h), 'TraC', MODELS.TraC as Model, last('Tra'));
    assert.ok(Number.isInteger((closing.Fis as { TID: unknown }).TID), 'the German receipt carries its TID as an integer');
  });
});
