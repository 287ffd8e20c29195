// Decoding time per request body (npm run bench:decode): the bench's receipt pool decoded in this process, no
// HTTP, no journal. On a machine whose speed drifts from minute to minute (a shared VM), req/s of two
// builds measured one after the other cannot tell a 10 % change; the same bodies decoded in alternating
// rounds in one process can. With `--against <folder>` (another checkout, built), its decoders run in turn
// with this one's, round by round.
//
//   npm run build && node --import tsx bench/decode.ts [--rounds 8] [--against ../other-checkout]
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { makePool } from './receipts.js';

type Decode = (text: string) => unknown;

interface Codec {
  name: string;
  json: Decode;
  xml: Decode;
}

async function codecOf(root: string, name: string): Promise<Codec> {
  const at = (file: string): string => pathToFileURL(resolve(root, 'dist/register/codec', file)).href;
  const json = (await import(at('json.js'))) as { decodeJson: Decode };
  const xml = (await import(at('xml.js'))) as { decodeXml: Decode };
  return { name, json: json.decodeJson, xml: xml.decodeXml };
}

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '8' }, against: { type: 'string' } }, strict: true });
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 3) throw new Error('--rounds: a whole number, at least 3');
const codecs = [await codecOf(process.cwd(), 'this build')];
if (values.against !== undefined) codecs.push(await codecOf(values.against, values.against));

const pool = makePool(500, 20240601);
const bodies = { json: pool.filter((r) => r.kind === 'json').map((r) => r.body.toString('utf8')), xml: pool.filter((r) => r.kind === 'xml').map((r) => r.body.toString('utf8')) };
const times = new Map<string, number[]>();
for (let round = 0; round < rounds; round++) {
  for (const kind of ['json', 'xml'] as const) {
    for (const codec of codecs) {
      const texts = bodies[kind];
      const start = process.hrtime.bigint();
      for (let i = 0; i < 10; i++) for (const text of texts) codec[kind](text);
      const us = Number(process.hrtime.bigint() - start) / 1000 / (10 * texts.length);
      // the first two rounds warm the JIT up
      if (round >= 2) times.set(`${kind} ${codec.name}`, [...(times.get(`${kind} ${codec.name}`) ?? []), us]);
    }
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;
for (const [name, us] of times) {
  console.log(`${name.padEnd(40)} median ${median(us).toFixed(1)} µs per body (rounds: ${us.map((u) => u.toFixed(1)).join(' ')})`);
}
// the two builds of one round ran within a second of each other: their ratio drifts less than either time
const other = codecs[1];
if (other !== undefined) {
  for (const kind of ['json', 'xml'] as const) {
    const mine = times.get(`${kind} ${codecs[0]?.name ?? ''}`) ?? [];
    const theirs = times.get(`${kind} ${other.name}`) ?? [];
    const ratios = mine.map((t, i) => t / (theirs[i] ?? t));
    console.log(`${kind}: this build / ${other.name}, median of the rounds' ratios: ${median(ratios).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(' ')})`);
  }
}
