/** The efr command: serve with --port/--data and with EFR_PORT/EFR_DATA; the built bin; usage errors. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, freePort, get, tempDir } from './helpers.js';

async function waitFor(url: string, child: ReturnType<typeof spawn>): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
    try {
      if ((await get(url)).status === 200) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error('did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('efr serve takes its port and data folder from EFR_PORT and EFR_DATA, and stops on SIGTERM', async () => {
  const dir = tempDir();
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--host', '127.0.0.1'], { cwd: ROOT, env: { ...process.env, EFR_PORT: String(port), EFR_DATA: dir }, stdio: 'ignore' });
  try {
    await waitFor(`http://127.0.0.1:${port}/state`, child);
    assert.ok(existsSync(join(dir, 'journal', 'journal.sqlite')));
    assert.ok(existsSync(join(dir, 'keys', 'instance.pub.pem')));
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.on('exit', r));
    assert.equal(code, 0);
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the built bin/efr.js (npm ci builds it) serves with --port and --data', async () => {
  const dir = tempDir();
  const port = await freePort();
  const child = spawn(process.execPath, ['bin/efr.js', 'serve', '--port', String(port), '--data', dir, '--host', '127.0.0.1'], { cwd: ROOT, stdio: 'ignore' });
  try {
    await waitFor(`http://127.0.0.1:${port}/state`, child);
    const state = await get(`http://127.0.0.1:${port}/state`);
    assert.equal(state.json.name, 'efr');
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('usage errors exit non-zero with a message', () => {
  const bad = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', 'x'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /invalid port: x/);
  const unknown = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'fly'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown command fly/);
});
