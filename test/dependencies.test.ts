/**
 * package.json lists what the product uses: Knip (config in knip.config.ts) finds a runtime dependency
 * nobody imports, a package only tests, bench or scripts use sitting in `dependencies`, product code
 * importing a devDependency, and an import (or a script's binary) of a package that is not listed.
 * Both runs read the sources only (no network, no build) and take a few seconds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadedByName } from '../knip.config.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const knip = join(root, 'node_modules', 'knip', 'bin', 'knip.js');

interface Run {
  code: number;
  output: string;
}

function runKnip(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [knip, '--include', 'dependencies,unlisted,binaries', '--no-progress', ...args],
      { cwd: root, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }, timeout: 60_000, maxBuffer: 4 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}`.trim() });
      },
    );
  });
}

test('package.json lists exactly the packages the sources, tests and scripts use', { timeout: 90_000 }, async (t) => {
  // both at once: the default run over every file, the strict production run over the product
  const [all, product] = await Promise.all([runKnip([]), runKnip(['--production', '--strict'])]);

  await t.test('every listed package is used, every imported package is listed', () => {
    assert.equal(all.code, 0, `knip found dependency problems (fix package.json, or see knip.config.ts):\n${all.output}`);
  });

  await t.test('dependencies are what the product loads at run time; the rest is in devDependencies', () => {
    assert.equal(
      product.code,
      0,
      'knip --production --strict found a dependency only dev code uses (move it to devDependencies) ' +
        `or product code importing a devDependency (move it to dependencies):\n${product.output}`,
    );
  });
});

test('the packages knip.config.ts lets pass as loaded by name are still loaded by name', () => {
  const lazy = readFileSync(join(root, 'src', 'shared', 'lazy-modules.ts'), 'utf8');
  // the type imports name them too: only a name outside an import counts
  const code = lazy.replace(/^import\b[^;]*;/gm, '');
  for (const name of loadedByName) {
    assert.ok(code.includes(`'${name}'`), `src/shared/lazy-modules.ts no longer loads '${name}': drop it from loadedByName in knip.config.ts`);
  }
});
