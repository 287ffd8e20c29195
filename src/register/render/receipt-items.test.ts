/**
 * The print order of PosA: each Mod under the position its PN names, whatever the order the POS listed
 * them in; several named positions, `*`, an unknown PN and a missing PN.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Obj } from '../codec/index.js';
import { printOrder } from './receipt-items.js';

const pos = (pn: string): Obj => ({ _: 'Pos', PN: pn, Dsc: `P${pn}`, Amt: '1.00' });
const mod = (dsc: string, pn?: string): Obj => ({ _: 'Mod', ...(pn === undefined ? {} : { PN: pn }), Dsc: dsc, Amt: '-0.10' });
const names = (lines: Obj[]): string[] => lines.map((l) => String(l.Dsc));

test('a Mod goes under the position it names, also when listed before it or after others', () => {
  assert.deepEqual(names(printOrder([pos('1'), pos('2'), pos('3'), mod('m2', '2')])), ['P1', 'P2', 'm2', 'P3']);
  assert.deepEqual(names(printOrder([mod('m3', '3'), pos('1'), pos('2'), pos('3')])), ['P1', 'P2', 'P3', 'm3']);
  assert.deepEqual(names(printOrder([pos('1'), mod('a', '1'), pos('2'), mod('b', '1')])), ['P1', 'a', 'b', 'P2']);
});

test('several positions: under the last named; `*` and unknown PNs after all positions; no PN stays in place', () => {
  assert.deepEqual(names(printOrder([pos('1'), pos('2'), pos('3'), mod('r', '1-2')])), ['P1', 'P2', 'r', 'P3']);
  assert.deepEqual(names(printOrder([pos('1'), pos('2'), pos('3'), mod('l', '1 3')])), ['P1', 'P2', 'P3', 'l']);
  assert.deepEqual(names(printOrder([pos('1'), mod('all', '*'), pos('2')])), ['P1', 'P2', 'all']);
  assert.deepEqual(names(printOrder([pos('1'), mod('x', '9'), pos('2')])), ['P1', 'P2', 'x']);
  assert.deepEqual(names(printOrder([pos('1'), mod('prev'), pos('2')])), ['P1', 'prev', 'P2']);
});

test('a Mod is printed under the position the tax analysis gave its amount to: "01" is position 1, a position without PN is its ordinal', () => {
  assert.deepEqual(names(printOrder([pos('01'), pos('02'), pos('03'), mod('m1', '1')])), ['P01', 'm1', 'P02', 'P03']);
  assert.deepEqual(names(printOrder([pos('1'), pos('2'), pos('3'), mod('m2', '02')])), ['P1', 'P2', 'm2', 'P3']);
  assert.deepEqual(names(printOrder([pos('01'), pos('02'), pos('03'), mod('r', '1-2')])), ['P01', 'P02', 'r', 'P03']);
  const unnumbered = (dsc: string): Obj => ({ _: 'Pos', Dsc: dsc, Amt: '1.00' });
  assert.deepEqual(names(printOrder([unnumbered('a'), unnumbered('b'), unnumbered('c'), mod('m', '2')])), ['a', 'b', 'm', 'c']);
});
