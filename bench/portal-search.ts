// Search bench of the portal's PostgreSQL store (npm run bench:portal): 100,000 companies under a few
// organizations, then searches per second and latency with a text filter and with a read-scope prefix.
import { makeRandom } from './receipts.js';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PostgresPortalStore } from '../src/portal/store/postgres/postgres-portal-store.js';
import { createScratchSchema, redactUrl, testPgUrl } from '../test/scratch-schema.js';
import type { Entity, EntitySearch, NewEntity, ReadScope } from '../src/portal/store/types.js';

const HELP = `Search bench of the portal store on PostgreSQL.

usage: npm run bench:portal [-- --companies N] [-- --seconds S]
       node --import tsx bench/portal-search.ts [--companies N] [--seconds S] [--help]

  --companies N   companies to insert (default 100000), spread over 5 organizations
  --seconds S     measured seconds per scenario (default 3; 0.3 s warm-up before each)
  --keep          keep the schema (its name is printed) to look at plans; drop it yourself after
  --help          this text

environment:
  EFR_BENCH_PG    the server (default EFR_TEST_PG, else postgres://postgres@127.0.0.1:5432/test); the bench
                  works in its own schema efr_bench_<random> and drops it at the end

Each scenario runs its searches one after another on one connection (limit 100, ordered by name, the
totalCount computed as the portal does) and reports searches per second, p50 and p99 latency in ms and
the matches (totalCount) of its queries.`;

const ORGANIZATIONS = 5;
const BATCH = 2000;

const TRADES = ['Bäckerei', 'Café', 'Autohaus', 'Apotheke', 'Hotel', 'Restaurant', 'Friseur', 'Buchhandlung', 'Metzgerei', 'Blumen',
  'Elektro', 'Sport', 'Optik', 'Reisebüro', 'Schuhhaus', 'Weinbau', 'Tischlerei', 'Juwelier', 'Drogerie', 'Gasthaus'];
const NAMES = ['Huber', 'Gruber', 'Bauer', 'Wagner', 'Müller', 'Pichler', 'Steiner', 'Moser', 'Mayer', 'Hofer', 'Leitner', 'Berger',
  'Fuchs', 'Eder', 'Fischer', 'Schmid', 'Winkler', 'Weber', 'Schwarz', 'Maier', 'Schneider', 'Reiter', 'Mayr', 'Brunner', 'Lang',
  'Baumgartner', 'Auer', 'Binder', 'Lechner', 'Wolf', 'Wallner', 'Aigner', 'Ebner', 'Koller', 'Lehner', 'Haas', 'Schuster', 'Holzer'];
const FORMS = ['GmbH', 'KG', 'OG', 'e.U.', 'AG', 'GmbH & Co KG'];
const CITIES: [string, string][] = [['Wien', '1010'], ['Graz', '8010'], ['Linz', '4020'], ['Salzburg', '5020'], ['Innsbruck', '6020'],
  ['Klagenfurt', '9020'], ['Villach', '9500'], ['Wels', '4600'], ['St. Pölten', '3100'], ['Dornbirn', '6850'], ['Steyr', '4400'],
  ['Bregenz', '6900'], ['Leoben', '8700'], ['Krems', '3500'], ['Eisenstadt', '7000']];

/** Deterministic data: the same companies on every run (the receipts bench's mulberry32). */
const rng = makeRandom;

function company(parentId: number, i: number, next: () => number): NewEntity {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const [city, zip] = pick(CITIES);
  const name = `${pick(TRADES)} ${pick(NAMES)} ${pick(FORMS)}`;
  return {
    kind: 'company', parentId, name, address: `${pick(NAMES)}gasse ${1 + Math.floor(next() * 120)}`, city, zip, countryCode: 'AT',
    invoiceEmailAddress: `office${i}@example.at`, userComment: next() < 0.1 ? `Filialbetrieb ${pick(NAMES)}` : null, state: 'Productive',
    test: false, badge: `B${(100000000 + i).toString(36).toUpperCase()}`, taxId: `ATU${String(10000000 + Math.floor(next() * 89999999))}`,
    ignoreTaxId: false, countryProperties: null, locationIdentification: null, deactivateAfter: null,
  };
}

function organization(parentId: number | null, name: string): NewEntity {
  return {
    kind: 'organization', parentId, name, address: null, city: null, zip: null, countryCode: null, invoiceEmailAddress: null, userComment: null,
    state: 'Productive', test: false, badge: null, taxId: null, ignoreTaxId: false, countryProperties: null, locationIdentification: null,
    deactivateAfter: null,
  };
}

interface Scenario {
  name: string;
  /** the i-th search of the scenario */
  search(i: number): { query: EntitySearch; scope: ReadScope };
}

interface Measured {
  name: string;
  searches: number;
  perSecond: number;
  p50: number;
  p99: number;
  matches: string;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

async function measure(store: PostgresPortalStore, s: Scenario, seconds: number): Promise<Measured> {
  const warmUntil = performance.now() + 300;
  for (let i = 0; performance.now() < warmUntil; i++) {
    const { query, scope } = s.search(i);
    await store.searchEntities(query, scope);
  }
  const times: number[] = [];
  const totals = new Set<number>();
  const start = performance.now();
  const end = start + seconds * 1000;
  for (let i = 0; performance.now() < end; i++) {
    const { query, scope } = s.search(i);
    const t0 = performance.now();
    const r = await store.searchEntities(query, scope);
    times.push(performance.now() - t0);
    totals.add(r.totalCount);
  }
  const elapsed = (performance.now() - start) / 1000;
  times.sort((a, b) => a - b);
  const t = [...totals].sort((a, b) => a - b);
  const matches = t.length === 1 ? String(t[0]) : `${t[0]}..${t[t.length - 1]}`;
  return { name: s.name, searches: times.length, perSecond: times.length / elapsed, p50: quantile(times, 0.5), p99: quantile(times, 0.99), matches };
}

function table(rows: Measured[]): string {
  const head = ['scenario', 'searches', 'searches/s', 'p50 ms', 'p99 ms', 'matches'];
  const body = rows.map((r) => [r.name, String(r.searches), r.perSecond.toFixed(0), r.p50.toFixed(2), r.p99.toFixed(2), r.matches]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] as string).length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { companies: { type: 'string' }, seconds: { type: 'string' }, keep: { type: 'boolean' }, help: { type: 'boolean' } } });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const total = Number(values.companies ?? 100_000);
  const seconds = Number(values.seconds ?? 3);
  if (!Number.isSafeInteger(total) || total < ORGANIZATIONS || !(seconds > 0)) throw new Error('--companies must be an integer of at least 5, --seconds above 0');
  const url = process.env.EFR_BENCH_PG || testPgUrl();
  const scratch = await createScratchSchema(url, 'efr_bench_');
  const store = new PostgresPortalStore({ url, schema: scratch.schema, poolSize: 2 });
  console.log(`portal search bench: ${redactUrl(url)}, schema ${scratch.schema}`);
  try {
    await store.migrate();
    const now = new Date();
    const root = await store.createEntity(organization(null, 'Bench Root'), now);
    const orgs: Entity[] = [];
    for (let o = 0; o < ORGANIZATIONS; o++) orgs.push(await store.createEntity(organization(root.id, `Region ${o + 1}`), now));
    const next = rng(20240601);
    const t0 = performance.now();
    const sample: Entity[] = [];
    for (let from = 0; from < total; from += BATCH) {
      const batch: NewEntity[] = [];
      for (let i = from; i < Math.min(total, from + BATCH); i++) batch.push(company((orgs[i % ORGANIZATIONS] as Entity).id, i, next));
      const made = await store.createEntities(batch, now);
      sample.push(...made.filter((_, k) => k % 997 === 0));
    }
    const insertSeconds = (performance.now() - t0) / 1000;
    console.log(`inserted ${total} companies in ${insertSeconds.toFixed(1)} s (${(total / insertSeconds).toFixed(0)}/s, batches of ${BATCH})`);
    // statistics and visibility map, as autovacuum keeps them on a database that has been running
    const admin = new pg.Client({ connectionString: url, options: `-c search_path=${scratch.schema}` });
    await admin.connect();
    await admin.query('VACUUM ANALYZE entities');
    await admin.end();

    const page = { offset: 0, limit: 100, orderBy: 'name', descending: false } as const;
    const all: ReadScope = { all: true };
    const region = orgs[1] as Entity;
    const texts = ['huber', 'gmbh', 'apotheke wag', 'wien', 'atu1234', 'office4711@', 'zz-nothing'];
    const scenarios: Scenario[] = [
      ...texts.map((text): Scenario => ({ name: `text "${text}"`, search: () => ({ query: { ...page, kind: 'company', searchText: text }, scope: all }) })),
      { name: 'text, the 7 above in turn', search: (i) => ({ query: { ...page, kind: 'company', searchText: texts[i % texts.length] as string }, scope: all }) },
      { name: 'scope prefix (1 of 5 organizations)', search: () => ({ query: { ...page, kind: 'company' }, scope: { prefixes: [region.path] } }) },
      { name: 'scope prefix, page 50 (offset 5000)', search: () => ({ query: { ...page, kind: 'company', offset: 5000 }, scope: { prefixes: [region.path] } }) },
      { name: 'scope prefix + text "huber"', search: () => ({ query: { ...page, kind: 'company', searchText: 'huber' }, scope: { prefixes: [region.path] } }) },
      { name: 'scope prefix + text, the 7 in turn', search: (i) => ({ query: { ...page, kind: 'company', searchText: texts[i % texts.length] as string }, scope: { prefixes: [region.path] } }) },
      {
        name: 'scope of 3 companies (3 prefixes)',
        search: (i) => ({ query: { ...page, kind: 'company' }, scope: { prefixes: [0, 1, 2].map((k) => (sample[(i * 3 + k) % sample.length] as Entity).path) } }),
      },
    ];
    const results: Measured[] = [];
    for (const s of scenarios) results.push(await measure(store, s, seconds));
    console.log(`\n${total} companies, limit 100, order by name, one connection, ${seconds} s per scenario\n`);
    console.log(table(results));
  } finally {
    await store.close();
    if (values.keep) console.log(`\nkept schema ${scratch.schema}: DROP SCHEMA ${scratch.schema} CASCADE when done`);
    else await scratch.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
