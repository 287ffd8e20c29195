import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import Fastify, { LogController } from 'fastify';
import pino from 'pino';
import { lazyRequestLogger } from './request-logger.js';

function capture(): { logger: pino.Logger; lines: Array<Record<string, unknown>>; children: () => number } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  const logger = pino({ level: 'info', redact: ['req.headers.authorization'] }, stream);
  let made = 0;
  // children inherit child() from the logger they are made of: this counts the children of every level
  const child = logger.child;
  logger.child = function (this: pino.Logger, ...args: Parameters<typeof child>) {
    made += 1;
    return child.apply(this, args);
  } as typeof logger.child;
  return { logger, lines, children: () => made };
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("a request's logger", () => {
  test('is made on its first line, with the request id, and not at all for a request that logs nothing', async () => {
    const { logger, lines, children } = capture();
    const quiet = lazyRequestLogger(logger, { reqId: 'req-1' }, {});
    assert.equal(quiet.level, 'info');
    assert.equal(children(), 0);
    const loud = lazyRequestLogger(logger, { reqId: 'req-2' }, {});
    loud.error({ err: new Error('boom') }, 'request failed');
    loud.info('second line');
    await flush();
    assert.equal(children(), 1);
    assert.deepEqual(lines.map((l) => [l.reqId, l.msg, l.level]), [['req-2', 'request failed', 50], ['req-2', 'second line', 30]]);
    assert.equal((lines[0]?.err as { message?: string } | undefined)?.message, 'boom');
  });

  test('keeps a level set before its first line, and its own level does not change the service logger', async () => {
    const { logger, lines } = capture();
    const req = lazyRequestLogger(logger, { reqId: 'req-3' }, {});
    req.level = 'debug';
    assert.equal(req.level, 'debug');
    req.debug({ path: '/x' }, 'request');
    req.child({ step: 'inner' }).debug('inner line');
    await flush();
    assert.deepEqual(lines.map((l) => [l.reqId, l.msg, l.step]), [['req-3', 'request', undefined], ['req-3', 'inner line', 'inner']]);
    assert.equal(logger.level, 'info');
  });

  test('is what Fastify gives the handlers: their lines carry the request id', async () => {
    const { logger, lines, children } = capture();
    const app = Fastify({ loggerInstance: logger, childLoggerFactory: lazyRequestLogger, logController: new LogController({ disableRequestLogging: true }) });
    app.get('/quiet', async () => 'ok');
    app.get('/loud', async (req) => {
      req.log.warn({ path: '/loud' }, 'something to note');
      return 'ok';
    });
    try {
      await app.ready();
      const before = children();
      assert.equal((await app.inject({ url: '/quiet' })).statusCode, 200);
      assert.equal(children(), before);
      assert.equal((await app.inject({ url: '/loud' })).statusCode, 200);
      await flush();
      const line = lines.find((l) => l.msg === 'something to note');
      assert.equal(typeof line?.reqId, 'string');
      assert.equal(line?.level, 40);
    } finally {
      await app.close();
    }
  });
});
