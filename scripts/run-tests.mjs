// Runs the test files with node's test runner through tsx.
//   node scripts/run-tests.mjs                  every test file (src/**/*.test.ts and test/**/*.test.ts)
//   node scripts/run-tests.mjs --unit           the in-process tests beside the code (src/**/*.test.ts)
//   node scripts/run-tests.mjs --e2e            the end-to-end tests (test/**/*.test.ts)
//   node scripts/run-tests.mjs render journal/  the files whose path contains one of the words (with a flag: within it)
// Node 20 has no glob for --test, so the files are listed here; CI counts every one of them.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, p));
  }
  return out;
}

const args = process.argv.slice(2);
const flags = args.filter((a) => a.startsWith('--'));
const filter = args.filter((a) => !a.startsWith('--'));
const unknown = flags.filter((f) => f !== '--unit' && f !== '--e2e');
if (unknown.length) {
  console.error(`unknown option ${unknown.join(' ')}: use --unit (src/**/*.test.ts), --e2e (test/**/*.test.ts) and parts of paths`);
  process.exit(2);
}
// both flags, like none, mean every file
const dirs = flags.length === 1 ? [flags[0] === '--unit' ? 'src' : 'test'] : ['src', 'test'];
let files = dirs.flatMap((d) => walk(join(root, d), [])).sort();
if (filter.length) files = files.filter((f) => filter.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// The unit tests mostly wait (PostgreSQL, timers, child processes), so twice as many files as cores run at
// once; the end-to-end tests load the machine themselves (kill -9 under load, timing of answers), two at a time.
const concurrency = flags.length === 1 && flags[0] === '--unit' ? Math.max(2, 2 * availableParallelism()) : 2;
console.log(`running ${files.length} test files, ${concurrency} at a time`);
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
