/**
 * "Another machine" for tests of what the service allows from the LAN: a network namespace joined to this
 * one by a veth pair, made here with `ip netns` (root only). Requests are made inside the namespace with
 * curl when installed, else with node's fetch.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface RemoteAnswer {
  status: number;
  text: string;
  /** the response head as text (curl) or a JSON list of pairs (fetch) */
  headers: string;
  /** the body as bytes (a zip) */
  body: Buffer;
}

export interface Namespace {
  /** the address of this machine as the namespace sees it */
  hostIp: string;
  /** a request from the other machine to `http://<hostIp>:<port><path>` */
  remote(port: number, path: string, headers?: Record<string, string>, options?: { method?: string; body?: string }): Promise<RemoteAnswer>;
  close(): Promise<void>;
}

/** A namespace, or the reason it cannot be made here (not root, no `ip netns`). */
export async function makeNamespace(): Promise<Namespace | string> {
  if (process.getuid?.() !== 0) return 'not root: ip netns needs root';
  const tag = randomBytes(3).toString('hex');
  const ns = `efr-${tag}`;
  const hostIf = `efh${tag}`;
  const nsIf = `efn${tag}`;
  const octet = 1 + (parseInt(tag, 16) % 250);
  const hostIp = `10.232.${octet}.1`;
  const close = async (): Promise<void> => {
    await run('ip', ['link', 'del', hostIf]).catch(() => undefined);
    await run('ip', ['netns', 'del', ns]).catch(() => undefined);
  };
  try {
    await run('ip', ['netns', 'add', ns]);
    await run('ip', ['link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf]);
    await run('ip', ['link', 'set', nsIf, 'netns', ns]);
    await run('ip', ['addr', 'add', `${hostIp}/30`, 'dev', hostIf]);
    await run('ip', ['link', 'set', hostIf, 'up']);
    await run('ip', ['netns', 'exec', ns, 'ip', 'addr', 'add', `10.232.${octet}.2/30`, 'dev', nsIf]);
    await run('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', nsIf, 'up']);
    await run('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);
  } catch (e) {
    await close();
    return `ip netns is unavailable here: ${(e as Error).message.split('\n')[0]}`;
  }
  const hasCurl = await run('sh', ['-c', 'command -v curl']).then(() => true, () => false);
  return {
    hostIp,
    close,
    async remote(port, path, headers = {}, options = {}) {
      const url = `http://${hostIp}:${port}${path}`;
      if (hasCurl) {
        const args = ['netns', 'exec', ns, 'curl', '-sS', '-D', '-', '--max-time', '20', '-X', options.method ?? 'GET', url];
        if (options.body !== undefined) args.push('--data-binary', options.body);
        for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
        const out = (await run('ip', args, { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 })).stdout;
        const split = out.indexOf('\r\n\r\n');
        const head = out.subarray(0, split).toString('latin1');
        const body = out.subarray(split + 4);
        return { status: Number(/^HTTP\/[\d.]+ (\d+)/.exec(head)?.[1]), headers: head, text: body.toString('utf8'), body };
      }
      const init = { method: options.method ?? 'GET', headers, ...(options.body === undefined ? {} : { body: options.body }) };
      const script = `fetch(${JSON.stringify(url)}, ${JSON.stringify(init)}).then(async (r) => { const b = Buffer.from(await r.arrayBuffer()); console.log(JSON.stringify({ status: r.status, headers: JSON.stringify([...r.headers]), body: b.toString('base64') })); })`;
      const out = (await run('ip', ['netns', 'exec', ns, process.execPath, '-e', script], { maxBuffer: 128 * 1024 * 1024 })).stdout;
      const parsed = JSON.parse(out) as { status: number; headers: string; body: string };
      const body = Buffer.from(parsed.body, 'base64');
      return { status: parsed.status, headers: parsed.headers, text: body.toString('utf8'), body };
    },
  };
}
