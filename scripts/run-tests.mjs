// Runs every test file (src/**/*.test.ts and test/**/*.test.ts) with node's test runner through tsx.
// Node 20 has no glob for --test, so the files are listed here; CI counts every one of them.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
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

const filter = process.argv.slice(2);
let files = [...walk(join(root, 'src'), []), ...walk(join(root, 'test'), [])].sort();
if (filter.length) files = files.filter((f) => filter.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
console.log(`running ${files.length} test files`);
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
