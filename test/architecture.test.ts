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
      { cwd: root, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }, timeout: 60_000, maxBuffer: 64 << 20 },
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

// A country folder is reached through the module registry (src/register/fiscal/registry.ts). The imports that
// still reach into one from outside are listed, not failed on yet, until they go through the registry too.
const countryImports = ofRule('country-folder-from-outside').map((v) => `${v.from} -> ${v.to}`);

test(`no file outside src/register/fiscal/ imports a country folder src/register/fiscal/<cc>/ (reported, not failing yet: ${countryImports.length} remain)`, (t) => {
  for (const line of countryImports) t.diagnostic(line);
  // none left (or the rule broke): then make the rule an error in .dependency-cruiser.cjs and assert none here
  assert.ok(countryImports.length > 0, 'no import of a country folder from outside src/register/fiscal/ is left: make the rule fail from now on');
});
