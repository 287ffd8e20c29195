// Naive durable reference for the bench that the bars compare against: a bare node:http server
// that, per POST, reads and parses the body, signs a SHA-256 hash of it with ECDSA P-256, appends one line
// (hash + signature, base64) to a file and fdatasyncs it before answering 200. No batching, on purpose.
//
//   node --import tsx bench/naive-reference.ts --port <port> --data <folder>
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { closeSync, fdatasyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { port: { type: 'string' }, data: { type: 'string' } }, strict: true });
const port = Number(values.port);
const dataDir = values.data;
if (!Number.isInteger(port) || port <= 0 || dataDir === undefined) {
  process.stderr.write('usage: naive-reference.ts --port <port> --data <folder>\n');
  process.exit(2);
}

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
mkdirSync(dataDir, { recursive: true });
const fd = openSync(join(dataDir, 'journal.txt'), 'a');
let seq = 0;

function answer(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function register(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const text = body.toString('utf8');
    if ((req.headers['content-type'] ?? '').includes('json')) {
      try {
        JSON.parse(text);
      } catch {
        answer(res, 400, '{"TraC":{"Result":{"RC":"BAD"}}}');
        return;
      }
    } // XML: just take the string
    const hash = createHash('sha256').update(body).digest();
    const signature = sign('sha256', hash, privateKey);
    seq += 1;
    writeSync(fd, `${seq} ${hash.toString('base64')} ${signature.toString('base64')}\n`);
    fdatasyncSync(fd);
    answer(res, 200, `{"TraC":{"SQ":${seq},"Result":{"RC":"OK"}}}`);
  });
}

const server = createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/register') {
    register(req, res);
  } else if (req.method === 'GET' && req.url === '/state') {
    answer(res, 200, `{"name":"naive-reference","pid":${process.pid}}`);
  } else {
    req.resume();
    answer(res, 404, '{"error":"not found"}');
  }
});

server.listen(port, '127.0.0.1');

function shutdown(): void {
  server.close();
  server.closeAllConnections();
  closeSync(fd);
  process.exit(0);
}
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
