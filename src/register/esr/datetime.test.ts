import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { formatLocalDateTime, formatWithOffset, isDate, parseLocalDateTime, yearOf } from './datetime.js';

describe('local date-times', () => {
  test('parses YYYY-MM-DDThh:mm:ss as local wall-clock time', () => {
    const d = parseLocalDateTime('2026-11-21T09:05:07');
    assert.ok(d);
    assert.deepEqual([d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds()], [2026, 10, 21, 9, 5, 7]);
  });

  test('rejects other forms and impossible dates', () => {
    for (const bad of ['2026-11-21T09:05', '2026-11-21 09:05:07', '2026-11-21T09:05:07Z', '2026-11-21T09:05:07+01:00', '2026-11-21T09:05:07.000', '2026-02-30T00:00:00', '2026-02-29T00:00:00', '2026-13-01T00:00:00', '2026-00-10T00:00:00', '2026-11-00T00:00:00', '2026-11-21T24:00:00', '2026-11-21T23:60:00', '2026-11-21T23:59:60', '26-11-21T09:05:07', '']) {
      assert.equal(parseLocalDateTime(bad), undefined, bad);
    }
    assert.ok(parseLocalDateTime('2028-02-29T23:59:59'), 'leap day');
  });

  test('formatLocalDateTime inverts parseLocalDateTime', () => {
    for (const text of ['2026-01-01T00:00:00', '2026-11-21T09:05:07', '2028-02-29T23:59:59']) {
      assert.equal(formatLocalDateTime(parseLocalDateTime(text) as Date), text);
    }
    assert.equal(formatLocalDateTime(new Date(2026, 0, 2, 3, 4, 5)), '2026-01-02T03:04:05');
  });

  test('formatWithOffset adds the local offset', () => {
    const d = new Date(2026, 10, 21, 23, 44, 0);
    const text = formatWithOffset(d);
    assert.match(text, /^2026-11-21T23:44:00[+-]\d{2}:\d{2}$/);
    assert.equal(new Date(text).getTime(), d.getTime());
  });

  test('isDate and yearOf', () => {
    assert.ok(isDate('2026-11-21'));
    assert.ok(!isDate('2026-11-31'));
    assert.ok(!isDate('2026-11-21T00:00:00'));
    assert.equal(yearOf('2025-12-31T23:59:59'), 2025);
  });
});
