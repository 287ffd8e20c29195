import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FiscalError } from '../../shared/errors.js';
import { parseAttributes } from '../profile/attributes.js';
import { checkEinvoiceAttributes, deliveryConfigured, deliveryTimeoutOf, endpointOf } from './endpoint.js';

const attrs = (text: string): Map<string, string> => parseAttributes(text);

describe('the endpoint of an e-invoice', () => {
  const all = attrs('eDoc_Url=https://ap.example/prod eDoc_Token=P eDoc_TestUrl=https://ap.example/test eDoc_TestToken=T eDoc_Url_DE=https://zre.example/de eDoc_Url_NL-TEST=https://nl.example/test eDoc_Token_NL-TEST=N');

  it('a production DD takes its own eDoc_Url_<DD>, else eDoc_Url, with eDoc_Token', () => {
    assert.deepEqual(endpointOf(all, 'PEPPOL', false), { url: 'https://ap.example/prod', attribute: 'eDoc_Url', test: false, token: 'P' });
    const sameHost = attrs('eDoc_Url=https://ap.example/prod eDoc_Token=P eDoc_Url_DE=https://ap.example/de');
    assert.deepEqual(endpointOf(sameHost, 'DE', false), { url: 'https://ap.example/de', attribute: 'eDoc_Url_DE', test: false, token: 'P' });
  });

  it('the general token goes only to the general endpoint\'s host: an own endpoint elsewhere gets its own token or none', () => {
    assert.deepEqual(endpointOf(all, 'DE', false), { url: 'https://zre.example/de', attribute: 'eDoc_Url_DE', test: false });
    const own = attrs('eDoc_Url=https://ap.example/prod eDoc_Token=P eDoc_Url_DE=https://zre.example/de eDoc_Token_DE=Z');
    assert.deepEqual(endpointOf(own, 'DE', false), { url: 'https://zre.example/de', attribute: 'eDoc_Url_DE', test: false, token: 'Z' });
    const test = attrs('eDoc_TestUrl=https://ap.example/test eDoc_TestToken=T eDoc_Url_NL-TEST=https://other.example/nl');
    assert.deepEqual(endpointOf(test, 'NL-TEST', false), { url: 'https://other.example/nl', attribute: 'eDoc_Url_NL-TEST', test: true });
  });

  it('a DD with a suffix is the test system: its own attribute, else eDoc_TestUrl with eDoc_TestToken', () => {
    assert.deepEqual(endpointOf(all, 'NL-TEST', false), { url: 'https://nl.example/test', attribute: 'eDoc_Url_NL-TEST', test: true, token: 'N' });
    assert.deepEqual(endpointOf(all, 'de-demo', false), { url: 'https://ap.example/test', attribute: 'eDoc_TestUrl', test: true, token: 'T' });
  });

  it('a test transaction is looked up as <DD>-TEST and never falls back to production', () => {
    assert.deepEqual(endpointOf(all, 'NL', true), { url: 'https://nl.example/test', attribute: 'eDoc_Url_NL-TEST', test: true, token: 'N' });
    assert.deepEqual(endpointOf(attrs('eDoc_Url=https://ap.example/prod'), 'NL', true), { missing: ['eDoc_Url_NL-TEST', 'eDoc_TestUrl'], test: true });
  });

  it('an instance that is a test system (EFR_testCloud) sends every e-invoice to the test system', () => {
    const cloud = attrs('EFR_testCloud eDoc_Url=https://ap.example/prod eDoc_TestUrl=https://ap.example/test');
    assert.equal((endpointOf(cloud, 'AT', false) as { url: string }).url, 'https://ap.example/test');
  });

  it('a register reporting to the tax authority\'s test system (Fiscal_Test) is a test installation: never to production', () => {
    const trial = attrs('Fiscal_Test eDoc_Url=https://ap.example/prod');
    assert.deepEqual(endpointOf(trial, 'NL', false), { missing: ['eDoc_Url_NL-TEST', 'eDoc_TestUrl'], test: true });
    const both = attrs('Fiscal_Test=1 eDoc_Url=https://ap.example/prod eDoc_TestUrl=https://ap.example/test');
    assert.equal((endpointOf(both, 'NL', false) as { url: string }).url, 'https://ap.example/test');
    assert.equal((endpointOf(attrs('Fiscal_Test=false eDoc_Url=https://ap.example/prod'), 'NL', false) as { url: string }).url, 'https://ap.example/prod');
  });

  it('none configured: the attributes that would name one', () => {
    assert.deepEqual(endpointOf(attrs(''), 'AT', false), { missing: ['eDoc_Url_AT', 'eDoc_Url'], test: false });
    assert.equal(deliveryConfigured(attrs('Fiscal_Timeout=100')), false);
    assert.equal(deliveryConfigured(attrs('eDoc_Url_DE=https://x.example')), true);
  });

  it('eDoc_Timeout: milliseconds, at least 100, default 3000', () => {
    assert.equal(deliveryTimeoutOf(attrs('eDoc_Timeout=1500')), 1500);
    assert.equal(deliveryTimeoutOf(attrs('eDoc_Timeout=5')), 3000);
    assert.equal(deliveryTimeoutOf(attrs('')), 3000);
  });

  it('the profile refuses an endpoint in clear text to another machine, no URL, or a timeout that is no number', () => {
    assert.doesNotThrow(() => checkEinvoiceAttributes(attrs('eDoc_Url=https://ap.example/x eDoc_TestUrl=http://127.0.0.1:9/x eDoc_Timeout=800')));
    assert.throws(() => checkEinvoiceAttributes(attrs('eDoc_Url_DE=http://zre.example/x')), (e: unknown) => e instanceof FiscalError && /edoc_url_de/.test(e.message));
    assert.throws(() => checkEinvoiceAttributes(attrs('eDoc_TestUrl')), FiscalError);
    assert.throws(() => checkEinvoiceAttributes(attrs('eDoc_Url=https://user:pass-word@ap.example/x')), (e: unknown) => e instanceof FiscalError && /credentials/.test(e.message) && !JSON.stringify(e).includes('pass-word') && !e.message.includes('pass-word'));
    assert.throws(() => checkEinvoiceAttributes(attrs('eDoc_Timeout=soon')), FiscalError);
  });
});
