/**
 * A fake e-invoice service provider for tests (not part of the product): an HTTP server on a free port that
 * speaks the service-provider API of docs/einvoicing.md. It takes `POST /invoices` with a UBL document, checks
 * the bearer token, the content type and that the document is a UBL Invoice or CreditNote whose number
 * (cbc:ID) is the one in X-EFR-Invoice, and answers `{"id", "status": "accepted"}`; a repeated Idempotency-Key
 * gets the id of its first delivery, as a provider that must not deliver an invoice twice answers.
 * Modes: 'ok'; 'reject' (422 with a reason); 'down' (the connection is dropped unanswered); 'slow' (answers
 * after `slowMs`); 'error' (HTTP 503).
 */
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProviderMode = 'ok' | 'reject' | 'down' | 'slow' | 'error';

export interface Received {
  headers: IncomingMessage['headers'];
  xml: string;
  /** the answer given: the id, or the HTTP status of a refusal; undefined when dropped */
  answered?: string;
}

export interface FakeProvider {
  /** the endpoint to configure (eDoc_Url / eDoc_TestUrl) */
  url: string;
  received: Received[];
  setMode(mode: ProviderMode, slowMs?: number): void;
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, value: object): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

/** Starts a provider that accepts the bearer token `token`; ids are `<prefix>-<uuid>`. */
export async function startFakeProvider(token: string, prefix: string): Promise<FakeProvider> {
  let mode: ProviderMode = 'ok';
  let slowMs = 0;
  const received: Received[] = [];
  const byKey = new Map<string, string>();
  const server = createServer((req, res) => {
    void (async () => {
      const xml = await body(req);
      const got: Received = { headers: req.headers, xml };
      received.push(got);
      if (mode === 'down') {
        req.socket.destroy();
        return;
      }
      if (mode === 'error') {
        got.answered = '503';
        json(res, 503, { error: 'maintenance' });
        return;
      }
      if (req.method !== 'POST' || req.url !== '/invoices') return json(res, 404, { error: 'no such resource' });
      if (req.headers.authorization !== `Bearer ${token}`) {
        got.answered = '401';
        return json(res, 401, { error: 'bad token' });
      }
      if (!/^application\/xml\b/.test(req.headers['content-type'] ?? '')) {
        got.answered = '415';
        return json(res, 415, { error: 'not XML' });
      }
      const root = /<(?:[A-Za-z]+:)?(Invoice|CreditNote)\s[^>]*xmlns(?::[A-Za-z]+)?="urn:oasis:names:specification:ubl:schema:xsd:(Invoice|CreditNote)-2"/.exec(xml);
      const number = /<cbc:ID>([^<]*)<\/cbc:ID>/.exec(xml)?.[1];
      if (!root || number === undefined || number !== decodeURIComponent(String(req.headers['x-efr-invoice'] ?? ''))) {
        got.answered = '400';
        return json(res, 400, { status: 'rejected', reason: `not a UBL invoice numbered ${String(req.headers['x-efr-invoice'])}` });
      }
      if (mode === 'reject') {
        got.answered = '422';
        return json(res, 422, { status: 'rejected', reason: 'receiver unknown in the Peppol network (SMP lookup failed)' });
      }
      const key = String(req.headers['idempotency-key'] ?? '');
      const id = byKey.get(key) ?? `${prefix}-${randomUUID()}`;
      byKey.set(key, id);
      // the id is the document's from here on, whether the answer reaches the sender or not
      got.answered = id;
      if (mode === 'slow') await new Promise((r) => setTimeout(r, slowMs));
      json(res, 200, { id, status: 'accepted' });
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/invoices`,
    received,
    setMode(m, ms = 0) {
      mode = m;
      slowMs = ms;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
