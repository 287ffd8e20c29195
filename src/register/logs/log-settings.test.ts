import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalError } from '../../shared/errors.js';
import { parseAttributes } from '../profile/attributes.js';
import { LOG_DEFAULTS, checkLogAttributes, logSettingsOf, logSizeOf } from './log-settings.js';

const settings = (text: string) => logSettingsOf(parseAttributes(text));

function refusal(text: string): FiscalError {
  try {
    checkLogAttributes(parseAttributes(text));
  } catch (e) {
    assert.ok(e instanceof FiscalError);
    return e;
  }
  assert.fail(`"${text}" was accepted`);
}

describe('log settings', () => {
  test('defaults: info, 10 MB, 5 rotated files, 8192 characters, nothing removed', () => {
    const s = settings('');
    assert.deepEqual(s, { ...LOG_DEFAULTS });
    assert.equal(s.level, 'info');
    assert.equal(s.maxBytes, 10 * 1024 * 1024);
  });

  test('Log_debug raises the level; its size (a bare number is MB) is the rotation size', () => {
    assert.equal(settings('Log_debug').level, 'debug');
    assert.equal(settings('Log_debug').maxBytes, LOG_DEFAULTS.maxBytes);
    assert.equal(settings('Log_debug=20').maxBytes, 20 * 1024 * 1024);
    assert.equal(settings('log_debug=512K').maxBytes, 512 * 1024);
    assert.equal(settings('Log_debug=0.5').maxBytes, 512 * 1024);
    assert.equal(settings('Log_debug=false').level, 'info');
    assert.equal(settings('Log_debug=0').level, 'info');
    assert.equal(logSizeOf('2 MB'), 2 * 1024 * 1024);
    assert.equal(logSizeOf('lots'), undefined);
  });

  test('Log_length cuts lines; Log_remove is a global expression, also as /pattern/flags', () => {
    assert.equal(settings('Log_length=300').maxLineLength, 300);
    const plain = settings('Log_remove="secret\\d+"').remove;
    assert.ok(plain);
    assert.equal('a secret1 b secret22'.replace(plain, ''), 'a  b ');
    const flagged = settings("Log_remove='/pin=\\w+/i'").remove;
    assert.ok(flagged);
    assert.equal('PIN=1234 pin=99'.replace(flagged, ''), ' ');
  });

  test('POST /profile refuses what the log cannot use, naming the attribute', () => {
    const bad = refusal('Log_remove=(');
    assert.equal(bad.code, '#INVALID_TYPE');
    assert.match(bad.message, /Attributes\.Log_remove/);
    assert.match(refusal('Log_length=ten').message, /Attributes\.Log_length/);
    assert.match(refusal('Log_length=5').message, /Attributes\.Log_length/);
    assert.match(refusal('Log_debug=huge').message, /Attributes\.Log_debug/);
    assert.match(refusal('Log_debug=1K').message, /Attributes\.Log_debug/);
    checkLogAttributes(parseAttributes('Log_debug=64K Log_length=200 Log_remove="x+"'));
    checkLogAttributes(parseAttributes('Log_debug Log_debug=no'));
  });
});
