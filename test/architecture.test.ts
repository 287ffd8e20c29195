/**
 * Dependencies in src/ point one way (entry -> routes/interfaces -> pipeline -> country modules -> record
 * writing -> journal -> codec/esr/shared). dependency-cruiser (rules in .dependency-cruiser.cjs, also
 * `npm run check:architecture`) reads the imports as the compiled code keeps them, so type-only imports,
 * which vanish at runtime, do not count. It reads the sources only and takes a few seconds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const depcruise = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
  cycle?: Array<{ name: string }>;
}

function cruise(): Promise<Violation[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [depcruise, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
      { cwd: root, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }, timeout: 180_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        // an error-level violation makes the exit code non-zero; the JSON on stdout is the answer either way
        try {
          resolve((JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations);
        } catch {
          reject(new Error(`dependency-cruiser gave no report: ${error?.message ?? ''}\n${stderr}`));
        }
      },
    );
  });
}

const violations = await cruise();

function ofRule(name: string): Violation[] {
  return violations.filter((v) => v.rule.name === name);
}

test('no runtime import cycle in src/', () => {
  const shown = ofRule('no-runtime-cycle').map((v) => `${v.from} -> ${(v.cycle ?? []).map((m) => m.name).join(' -> ')}`);
  assert.deepEqual(shown, [], `runtime import cycles (move what both sides need into a module below them):\n${shown.join('\n')}`);
});

// A country is one folder reached through the module registry (src/register/fiscal/registry.ts); what two
// countries share is a folder of its own; the portal uses the register only through its rendering entry.
const RULES: ReadonlyArray<[string, string]> = [
  ['country-folder-from-outside', 'no file outside src/register/fiscal/ imports a country folder src/register/fiscal/<cc>/'],
  ['country-folder-from-shared-fiscal-code', 'inside src/register/fiscal/, only registry.ts imports a country folder'],
  ['country-from-another-country', 'no country folder imports another country\'s files'],
  ['portal-beside-the-rendering-entry', 'the portal imports the register only through src/register/render/index.ts and the codec'],
  ['portal-reaches-no-register-service', 'through that entry the portal reaches none of the register service\'s context, pipeline, routes, journal stores or maintenance'],
];

for (const [rule, what] of RULES) {
  test(what, () => {
    const shown = ofRule(rule).map((v) => `${v.from} -> ${v.to}`);
    assert.deepEqual(shown, [], `${rule} (.dependency-cruiser.cjs):\n${shown.join('\n')}`);
  });
}

test('every rule of .dependency-cruiser.cjs is an error, so that npm run check:architecture fails on it too', async () => {
  const { createRequire } = await import('node:module');
  const config = createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs')) as { forbidden: Array<{ name: string; severity: string }> };
  assert.deepEqual(config.forbidden.filter((r) => r.severity !== 'error').map((r) => r.name), []);
  assert.deepEqual(config.forbidden.map((r) => r.name).sort(), ['no-runtime-cycle', ...RULES.map(([r]) => r)].sort());
});

test('the build (tsconfig.json, what dist/ holds) compiles no test, test helper or bench code', async () => {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const listed = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, [tsc, '-p', 'tsconfig.json', '--listFilesOnly'], { cwd: root, timeout: 60_000, maxBuffer: 16 << 20 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    );
  });
  const sources = listed.split('\n').map((f) => f.trim()).filter((f) => f.startsWith(root)).map((f) => f.slice(root.length)).filter((f) => !f.includes('node_modules/'));
  assert.ok(sources.includes('src/cli.ts'), `the build lists the product: ${sources.slice(0, 5).join(', ')}`);
  const dev = sources.filter((f) => /\.(test|testing|contract)\.ts$|^src\/shared\/testing\.ts$|^(test|bench)\//.test(f));
  assert.deepEqual(dev, []);
});
