import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { formatAttributes, parseAttributes, settingsOf } from './attributes.js';

describe('parseAttributes', () => {
  test('name, name=value and name="a b"', () => {
    const m = parseAttributes('Fiscal_Test Normalize_D=3 Printer="EPSON TM-T88" Device_Auth=user:pw');
    assert.deepEqual([...m], [
      ['fiscal_test', 'true'],
      ['normalize_d', '3'],
      ['printer', 'EPSON TM-T88'],
      ['device_auth', 'user:pw'],
    ]);
  });

  test('names are case-insensitive, the last one wins', () => {
    const m = parseAttributes('NORMALIZE_D=3 normalize_d=5');
    assert.equal(m.size, 1);
    assert.equal(m.get('normalize_d'), '5');
    assert.equal(parseAttributes('Test_RC=NO').get('test_rc'), 'NO');
  });

  test('values keep their case; quoted values may hold = and spaces', () => {
    const m = parseAttributes('Fis_QR="type=png&size=2&ec_level=L" Log_remove="a b  c"');
    assert.equal(m.get('fis_qr'), 'type=png&size=2&ec_level=L');
    assert.equal(m.get('log_remove'), 'a b  c');
  });

  test('extra white space and empty input', () => {
    assert.equal(parseAttributes(undefined).size, 0);
    assert.equal(parseAttributes('').size, 0);
    assert.equal(parseAttributes('   ').size, 0);
    assert.deepEqual([...parseAttributes('  a=1 \n\t b  ')], [['a', '1'], ['b', 'true']]);
  });

  test('formatAttributes round trips', () => {
    const text = 'fiscal_test normalize_d=3 printer="EPSON TM-T88"';
    assert.equal(formatAttributes(parseAttributes(text)), text);
    const m = parseAttributes('A B=x C="y z"');
    assert.deepEqual(parseAttributes(formatAttributes(m)), m);
  });
});

describe('settingsOf', () => {
  test('defaults: normalizeDays 7, no forced result', () => {
    const s = settingsOf(parseAttributes(''));
    assert.equal(s.normalizeDays, 7);
    assert.equal(s.respond200, false);
    assert.equal(s.ioNosync, false);
    assert.equal(s.testRc, undefined);
    assert.equal(s.raw.size, 0);
  });

  test('Normalize_D in any case', () => {
    assert.equal(settingsOf(parseAttributes('Normalize_D=10')).normalizeDays, 10);
    assert.equal(settingsOf(parseAttributes('NORMALIZE_D=2')).normalizeDays, 2);
    assert.equal(settingsOf(parseAttributes('Normalize_D=abc')).normalizeDays, 7);
    assert.equal(settingsOf(parseAttributes('Normalize_D')).normalizeDays, 7);
  });

  test('TEST_RC forces BAD or NO only', () => {
    assert.equal(settingsOf(parseAttributes('TEST_RC=NO')).testRc, 'NO');
    assert.equal(settingsOf(parseAttributes('test_rc=no')).testRc, 'NO');
    assert.equal(settingsOf(parseAttributes('TEST_RC=BAD')).testRc, 'BAD');
    assert.equal(settingsOf(parseAttributes('TEST_RC=OK')).testRc, undefined);
    assert.equal(settingsOf(parseAttributes('TEST_RC')).testRc, undefined);
  });

  test('boolean attributes: a name alone is true', () => {
    assert.equal(settingsOf(parseAttributes('HttpServer_respond200')).respond200, true);
    assert.equal(settingsOf(parseAttributes('HttpServer_respond200=true')).respond200, true);
    assert.equal(settingsOf(parseAttributes('HttpServer_respond200=false')).respond200, false);
    assert.equal(settingsOf(parseAttributes('httpserver_respond200=0')).respond200, false);
    assert.equal(settingsOf(parseAttributes('IO_nosync')).ioNosync, true);
  });
});
