/**
 * Bad input, property-based with fast-check: random and malformed JSON/XML bodies,
 * content types, headers and query strings sent to every route the service has (read from the running
 * app, so a route added later is fuzzed too), and random bytes as whole HTTP requests. Whatever arrives:
 * no 5xx, an answer within seconds, the service alive, and the journal unchanged (same records, same head,
 * the chain still verifying). XML bombs and deep nesting are refused at once.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { type TestService, get, post, sale, startTestService } from './helpers.js';
import { verifyJournal } from './verify-journal.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
interface Route {
  method: Method;
  path: string;
}
interface Answer {
  status: number;
  body: string;
}

/** Every route of the app (and method) from Fastify's route tree. */
function routesOf(svc: TestService): Route[] {
  const out: Route[] = [];
  // the routes as Fastify's tree: each line's depth is its indentation, its path the parent's and its own part
  const text = svc.app.printRoutes({ commonPrefix: false });
  const parents: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+) \(([A-Z, ]+)\)/.exec(line);
    if (!m) continue;
    const depth = (m[1] as string).length / 4;
    const parent = depth > 0 ? (parents[depth - 1] as string) : '';
    const path = parent.endsWith('/') && m[2]!.startsWith('/') ? parent + m[2]!.slice(1) : parent + m[2]!;
    parents[depth] = path;
    for (const method of m[3]!.split(',').map((s) => s.trim())) {
      // POST /service/restart stops the service on any input from this machine, as it should
      // (test/service.e2e.test.ts): fuzzing it would only end the test's service
      if (method === 'POST' && path === '/service/restart') continue;
      if (method === 'GET' || method === 'POST' || method === 'PUT' || method === 'DELETE') out.push({ method, path });
    }
  }
  return out;
}

/** A route's path with its parameters (`:serial`) filled by random text. */
function concrete(path: string, filler: string): string {
  return path.replace(/:[^/]+/g, encodeURIComponent(filler) || 'x');
}

/** The journal as the store holds it: number of records and each register's head. */
async function journalState(svc: TestService): Promise<string> {
  const count = await svc.ctx.store.count();
  const heads = svc.ctx.registers.list().map((r) => `${r.state.rn}:${r.state.sq}:${r.state.hash}`);
  return `${count}|${heads.sort().join(',')}`;
}

function send(port: number, method: Method, path: string, headers: Record<string, string>, body: Buffer | undefined): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, timeout: 15_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer to ${method} ${path} within 15 s`)));
    req.on('error', reject);
    if (body !== undefined) req.end(body);
    else req.end();
  });
}

/** Raw bytes as a request; resolves with what came back before the server closed (possibly nothing). */
function sendRaw(port: number, bytes: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('raw request hung for 10 s')));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' || e.code === 'EPIPE' ? resolve(Buffer.concat(chunks).toString('latin1')) : reject(e)));
    socket.end(bytes);
  });
}

// ---- generators ----

const PARAMS = ['rn', 'fn', 'tl', 'tt', 'tn', 'sq', 'type', 'from', 'till', 'limit', 'text', 'size', 'margin', 'fmt', 'name', 'password', 'width', 'aes', 'last', 'path', '_', 'ec_level', 'small', 'iid', 'quota', 'keep', 'key', 'format', 'ts'];
const CONTENT_TYPES = ['application/json', 'text/xml', 'application/xml', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=xyz', 'application/octet-stream', 'application/json; charset=latin1', 'text/xml; charset=nope', 'application/json; charset=utf-16le', ''];
const ROOTS = ['Tra', 'TraS', 'Audit', 'Cfg', 'Profile', 'ESR', 'Result', 'Pos', 'PosA'];

const textish = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constantFrom('', ' ', '-1', '0', '1e309', 'NaN', '2026-13-45', '../../etc/passwd', '%00', 'A'.repeat(300), 'null', '[]', '{}', '<a/>', "'; DROP TABLE x;--"));

const jsonBody = fc.oneof(
  fc.json({ maxDepth: 6 }),
  // a known root around random JSON: reaches the decoders and validators past the first check
  fc.tuple(fc.constantFrom(...ROOTS), fc.json({ maxDepth: 5 })).map(([root, inner]) => `{"${root}":${inner}}`),
  fc.tuple(fc.constantFrom(...ROOTS), fc.dictionary(fc.constantFrom('ESR', 'PosA', 'PayA', 'TL', 'TT', 'TN', 'D', 'Amt', 'TaxG', 'NFS', 'Ctm', 'Cmp', 'Attributes'), fc.jsonValue({ maxDepth: 4 }))).map(([root, inner]) => JSON.stringify({ [root]: inner })),
  // broken JSON: a valid document cut or with a character changed
  fc.tuple(fc.json({ maxDepth: 4 }), fc.nat(), fc.string({ maxLength: 3 })).map(([j, at, s]) => j.slice(0, at % (j.length + 1)) + s),
);

const xmlName = fc.constantFrom(...ROOTS, 'a', 'x:y', '1bad', 'ESR', 'PosA', 'Pos');
const xmlBody = fc.oneof(
  fc.tuple(xmlName, fc.dictionary(fc.constantFrom('TL', 'TT', 'TN', 'Amt', 'D', 'xmlns', 'a'), textish), fc.string({ maxLength: 30 })).map(
    ([name, attrs, inner]) => `<${name} ${Object.entries(attrs).map(([k, v]) => `${k}="${v.replace(/"/g, '&quot;')}"`).join(' ')}>${inner}</${name}>`,
  ),
  fc.tuple(xmlName, fc.string({ maxLength: 60 })).map(([name, s]) => `<?xml version="1.0"?><${name}>${s}`),
  fc.constantFrom(
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><Tra><ESR TN="&lol2;"/></Tra>',
    '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><Tra><ESR TN="&xxe;"/></Tra>',
    '<Tra><ESR><PosA><Pos Amt="1"/></PosA></ESR></Tra',
    '<Tra xmlns="urn:x"><![CDATA[<ESR/>]]></Tra>',
    '<Tra><ESR TN="1" TN="2"/></Tra>',
    '<?xml version="1.0" encoding="EBCDIC"?><Tra/>',
  ),
);

const body = fc.oneof(
  { weight: 4, arbitrary: jsonBody.map((s) => Buffer.from(s)) },
  { weight: 3, arbitrary: xmlBody.map((s) => Buffer.from(s)) },
  { weight: 2, arbitrary: textish.map((s) => Buffer.from(s)) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)) },
);

const query = fc.dictionary(fc.oneof(fc.constantFrom(...PARAMS), fc.string({ maxLength: 8 })), textish, { maxKeys: 5 });

const headerValue = fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')); // what Node may send
const headers = fc.record(
  {
    'content-type': fc.oneof(fc.constantFrom(...CONTENT_TYPES), headerValue),
    accept: fc.oneof(fc.constantFrom('application/json', 'text/xml', '*/*', 'text/html', 'image/png'), headerValue),
    authorization: fc.oneof(fc.constantFrom('Basic', 'Basic !!!', 'Bearer', 'Bearer x.y.z', 'Digest username="a", realm="EFR", nonce="n", uri="/", response="00"'), headerValue),
    origin: fc.oneof(fc.constant('http://evil.example'), headerValue),
    'x-forwarded-for': fc.constantFrom('127.0.0.1', '::1', '10.0.0.1'),
    'accept-language': headerValue,
  },
  { requiredKeys: [] },
);

describe('bad input gets a clear answer, never a crash, never a changed journal', () => {
  let svc: TestService;
  let routes: Route[];
  let journalBefore: string;

  before(async () => {
    svc = await startTestService();
    for (let i = 0; i < 3; i++) assert.equal((await post(`${svc.url}/register`, sale())).json.TraC.Result.RC, 'OK');
    routes = routesOf(svc);
    journalBefore = await journalState(svc);
  });
  after(() => svc.stop());

  test('the app has its routes (read from Fastify, so new ones are fuzzed too)', () => {
    const names = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const r of ['POST /register', 'POST /register/void/last', 'GET /find', 'POST /profile', 'GET /render', 'GET /render/pdf', 'PUT /peri/layout', 'GET /qr', 'GET /', 'POST /', 'GET /ui/journal', 'POST /ui/journal/verify']) assert.ok(names.has(r), `${r} in ${[...names].join(', ')}`);
  });

  test('random requests to every route: no 5xx, an answer within seconds', async () => {
    const routeIndex = fc.nat({ max: 10_000 });
    await fc.assert(
      fc.asyncProperty(routeIndex, query, headers, fc.option(body, { nil: undefined }), textish, async (ri, q, h, b, filler) => {
        const route = routes[ri % routes.length]!;
        let payload = route.method === 'GET' || route.method === 'DELETE' ? undefined : b;
        // an empty or well-formed body to a void route is a real void: keep those bodies malformed
        if (route.path.startsWith('/register/void') && payload !== undefined) payload = Buffer.concat([Buffer.from('\u0001'), payload]);
        if (route.path.startsWith('/register/void') && payload === undefined) payload = Buffer.from('\u0001');
        const qs = new URLSearchParams(q).toString();
        const path = concrete(route.path, filler) + (qs ? `?${qs}` : '');
        const sendHeaders: Record<string, string> = {};
        for (const [k, v] of Object.entries(h)) if (v !== undefined) sendHeaders[k] = v;
        const a = await send(svc.port, route.method, path, sendHeaders, payload);
        assert.ok(a.status >= 100 && a.status < 500, `${route.method} ${path} with ${JSON.stringify(sendHeaders)} and ${payload?.toString('utf8').slice(0, 200)} answered ${a.status}: ${a.body.slice(0, 300)}`);
        assert.ok(!/\bat [\w.<>]+ \(.*:\d+:\d+\)/.test(a.body), `no stack trace in ${a.body.slice(0, 300)}`);
        // checked after every request, so that a change names the request that made it
        const now = await journalState(svc);
        // an Audit record holds any text: a random body that is a well-formed Audit is a real record, not bad input
        // (POST /restart takes the same records as POST /register)
        if (now !== journalBefore && route.method === 'POST' && ['/register', '/restart'].includes(route.path) && a.status === 200 && /AuditC/.test(a.body) && /"RC":"OK"|RC="OK"/.test(a.body)) {
          journalBefore = now;
          return;
        }
        assert.equal(now, journalBefore, `${route.method} ${path} with ${JSON.stringify(sendHeaders)} and ${JSON.stringify(payload?.toString('utf8').slice(0, 200))} changed the journal (answer ${a.status}: ${a.body.slice(0, 300)})`);
      }),
      { numRuns: 600, seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31) },
    );
  });

  test('random bytes as whole HTTP requests: refused or answered, never a 5xx, the service alive', async () => {
    const line = fc.oneof(
      fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
      fc.tuple(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'BREW', ''), fc.string({ maxLength: 60 }), fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/9.9', ''), fc.array(fc.string({ maxLength: 40 }), { maxLength: 5 }), fc.string({ maxLength: 80 })).map(
        ([m, p, v, hs, b]) => Buffer.from(`${m} /${p} ${v}\r\nHost: x\r\n${hs.join('\r\n')}\r\nContent-Length: ${Buffer.byteLength(b)}\r\n\r\n${b}`, 'latin1'),
      ),
    );
    await fc.assert(
      fc.asyncProperty(line, async (bytes) => {
        const answer = await sendRaw(svc.port, bytes);
        const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1];
        if (status) assert.ok(Number(status) < 500, `${JSON.stringify(bytes.toString('latin1').slice(0, 200))} answered ${answer.slice(0, 300)}`);
      }),
      { numRuns: 200 },
    );
    assert.equal((await get(`${svc.url}/state`)).status, 200, 'still answering');
  });

  test('XML bombs and deep nesting are refused with 400, without echoing the document', async () => {
    const deep = 200_000;
    const cases: Array<[string, string]> = [
      ['text/xml', '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]><Tra><ESR TN="&d;"/></Tra>'],
      ['text/xml', `<Tra>${'<a>'.repeat(deep)}${'</a>'.repeat(deep)}</Tra>`],
      ['application/json', `${'{"Tra":'.repeat(deep)}1${'}'.repeat(deep)}`],
      ['application/json', `{"Tra":{"ESR":{"PosA":${'['.repeat(deep)}${']'.repeat(deep)}}}}`],
    ];
    for (const [contentType, text] of cases) {
      const a = await send(svc.port, 'POST', '/register', { 'content-type': contentType }, Buffer.from(text));
      assert.equal(a.status, 400, a.body.slice(0, 300));
      assert.match(a.body, /#XML_FORBIDDEN|#MALFORMED/);
      assert.ok(a.body.length < 4000, `a short answer, not the document echoed (${a.body.length} bytes)`);
    }
  });

  test('a body over the limit is refused with 413 #TOO_LARGE', async () => {
    const big = Buffer.alloc(20 * 1024 * 1024, 0x20);
    const a = await send(svc.port, 'POST', '/register', { 'content-type': 'application/json' }, big);
    assert.equal(a.status, 413, a.body.slice(0, 200));
    assert.match(a.body, /#TOO_LARGE/);
  });

  test('afterwards the journal is unchanged and its chain verifies', async () => {
    assert.equal(await journalState(svc), journalBefore);
    const report = await verifyJournal(svc.dataDir);
    assert.ok(report.ok, JSON.stringify(report));
    assert.equal((await post(`${svc.url}/register`, sale())).json.TraC.Result.RC, 'OK', 'and it still registers');
  });
});
