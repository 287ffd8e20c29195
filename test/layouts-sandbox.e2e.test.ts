/**
 * The template sandbox does not hold the service: over real HTTP, templates that loop forever (the
 * editor's preview, a saved layout drawn by GET /render) end with the timeout failure while the
 * service goes on answering registrations, a render queued behind them still answers, and the
 * worker a template hung is replaced, so the next render works.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FormData, request } from 'undici';
import { sandboxStats } from '../src/register/render/layouts/sandbox-worker.js';
import { type HttpAnswer, answerOf, get, post, sale, startTestService, until } from './helpers.js';

/** Settles with the answer and notes, in `order`, under `name`, when it did. */
function noted(order: string[], name: string, answer: Promise<HttpAnswer>): Promise<HttpAnswer> {
  return answer.then((r) => {
    order.push(name);
    return r;
  });
}

function assertTimedOut(r: HttpAnswer, layout: string): void {
  assert.equal(r.status, 400, r.text);
  assert.equal(r.json?.Result?.RC, 'BAD', r.text);
  assert.equal(r.json?.Result?.ErrorCode, '#INVALID_VALUE', r.text);
  assert.match(r.json.Result.UserMessage, new RegExp(`layout ${layout.replace('.', '\\.')}`), r.text);
  assert.match(r.json.Result.UserMessage, /ran longer than 1000 ms and was stopped/, r.text);
}

async function upload(url: string, fileName: string, content: string): Promise<HttpAnswer> {
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/plain' }), fileName);
  return answerOf(await request(url, { method: 'POST', body: form }));
}

test('looping previews (ejs and pug) end with the timeout failure while POST /register answers, and a render queued behind them answers too', async () => {
  const svc = await startTestService();
  const P = `${svc.url}/peri/pugedit/preview`;
  const preview = (template: string, query = ''): Promise<HttpAnswer> => post(`${P}${query}`, template, { 'content-type': 'text/plain; charset=utf-8' });
  try {
    await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Demo GmbH', Ctry: 'AT', TaxId: 'ATU12345678' } } });
    const first = await post(`${svc.url}/register`, sale());
    assert.equal(first.json.TraC.Result.RC, 'OK', first.text);
    // the workers are started and warm, so the previews below reach them at once
    assert.equal((await get(`${svc.url}/render`)).status, 200);

    const order: string[] = [];
    const busyBefore = sandboxStats().busy;
    const ejs = noted(order, 'ejs preview', preview('<% while(true){} %>', '?type=ejs'));
    const pug = noted(order, 'pug preview', preview('- while(true){}'));
    // both templates are running in the sandbox before the sale is sent
    await until('both previews run in the sandbox', async () => (sandboxStats().busy >= busyBefore + 2 ? true : undefined), 10_000);
    // every worker is taken by a looping template: this render waits in the queue
    const queued = noted(order, 'render', get(`${svc.url}/render`));

    const registered = await noted(order, 'register', post(`${svc.url}/register`, sale({}, [['A', '7.00']])));
    assert.equal(registered.json.TraC.Result.RC, 'OK', registered.text);
    const alsoState = await noted(order, 'state', get(`${svc.url}/state`));
    assert.equal(alsoState.status, 200, alsoState.text);
    assert.deepEqual(order, ['register', 'state'], 'the registration and /state answered while the looping previews and the queued render were still pending');

    assertTimedOut(await ejs, 'preview.ejs');
    assertTimedOut(await pug, 'preview.pug');
    const rendered = await queued;
    assert.equal(rendered.status, 200, rendered.text);
    assert.match(rendered.contentType, /text\/html/);
    assert.match(rendered.text, /Demo GmbH/);
    // it had to wait for a worker: it answered only after a looping preview gave one up
    const firstPreview = Math.min(order.indexOf('ejs preview'), order.indexOf('pug preview'));
    assert.ok(order.indexOf('render') > firstPreview, `the render answered after a preview freed a worker: ${order.join(', ')}`);

    // the sandbox works as before for the next template
    const next = await preview('p= ESR.T');
    assert.equal(next.status, 200, next.text);
    assert.equal(next.text, '<p>7.00</p>');
  } finally {
    await svc.stop();
  }
});

test('a saved layout that loops forever: GET /render answers the timeout failure, /register is not held up, its worker is replaced and the next render works', async () => {
  const svc = await startTestService();
  try {
    await post(`${svc.url}/cfg`, { Cfg: { Cmp: { Nam: 'Loop Shop', Ctry: 'AT', TaxId: 'ATU12345678' } } });
    const first = await post(`${svc.url}/register`, sale({}, [['A', '5.55']]));
    assert.equal(first.json.TraC.Result.RC, 'OK', first.text);
    assert.equal((await upload(`${svc.url}/peri/layout`, 'fiscal.ejs', '<p>before <% while(true){} %> after</p>')).status, 201);

    const order: string[] = [];
    const before = sandboxStats();
    const looping = noted(order, 'render', get(`${svc.url}/render`));
    await until('the layout runs in the sandbox', async () => (sandboxStats().busy > before.busy ? true : undefined), 10_000);
    const registered = await noted(order, 'register', post(`${svc.url}/register`, sale({}, [['B', '2.20']])));
    assert.equal(registered.json.TraC.Result.RC, 'OK', registered.text);
    assert.deepEqual(order, ['register'], 'the registration answered while the looping layout was still running');

    assertTimedOut(await looping, 'fiscal');
    // the worker that ran the template is not used again: it was terminated and a new one serves
    const after = sandboxStats();
    assert.ok(after.terminated > before.terminated, `a worker was terminated: ${JSON.stringify({ before, after })}`);

    // the same layout, fixed: the next render draws it
    const fixed = await request(`${svc.url}/peri/layout`, { method: 'PUT', body: (() => {
      const form = new FormData();
      form.append('file', new Blob(['<p id="fixed">Total <%= ESR.T %></p>'], { type: 'text/plain' }), 'fiscal.ejs');
      return form;
    })() });
    assert.equal(fixed.statusCode, 200, await fixed.body.text());
    const rendered = await get(`${svc.url}/render`);
    assert.equal(rendered.status, 200, rendered.text);
    assert.equal(rendered.text, '<p id="fixed">Total 2.20</p>');
    assert.ok(sandboxStats().started > before.started || after.started > before.started, 'a new worker was started after the terminated one');
  } finally {
    await svc.stop();
  }
});
