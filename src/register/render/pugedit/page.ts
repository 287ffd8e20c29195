/**
 * The template editor at /peri/pugedit: one HTML page and its script, plain and without a build step.
 * They live in a module (not in .html/.js files) so that the compiled service (dist/) carries them
 * without a copy step.
 *
 * The preview is shown in an iframe with `sandbox` (no scripts, an opaque origin) through `srcdoc`:
 * a template's output cannot act on the editor's page or call the service in its name.
 */

/** Scripts only from the service itself; the template's inline styles and data: images (QR codes) may show. */
export const PUGEDIT_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'";

export const PUGEDIT_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Layout editor</title>
<link rel="icon" href="data:,">
<style>
  body { font-family: system-ui, sans-serif; margin: 0; display: flex; flex-direction: column; height: 100vh; }
  header { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; padding: .5rem; background: #eee; border-bottom: 1px solid #ccc; }
  header label { display: flex; gap: .25rem; align-items: center; }
  main { display: flex; flex: 1; min-height: 0; }
  #template { flex: 1; font-family: monospace; font-size: 14px; padding: .5rem; border: 0; border-right: 1px solid #ccc; resize: none; tab-size: 2; }
  #preview { flex: 1; border: 0; background: #fff; }
  #message { padding: .25rem .5rem; min-height: 1.2em; white-space: pre-wrap; font-family: monospace; }
  #message.error { background: #fdd; color: #900; }
  #message.ok { background: #dfd; color: #060; }
</style>
</head>
<body>
<header>
  <label>RN <input id="rn" size="10" value="def"></label>
  <label>Layout <select id="layouts"><option value="">(new)</option></select></label>
  <label>Name <input id="name" size="14" value="fiscal" pattern="[A-Za-z0-9_-][A-Za-z0-9._-]*"></label>
  <label>Type <select id="type"><option value="pug">pug</option><option value="ejs">ejs</option></select></label>
  <label>Receipt FN <input id="fn" size="8" placeholder="last"></label>
  <button id="save" type="button">Save layout</button>
  <span id="shown"></span>
</header>
<div id="message" role="status"></div>
<main>
  <textarea id="template" spellcheck="false" aria-label="Template"></textarea>
  <iframe id="preview" sandbox="" title="Preview"></iframe>
</main>
<script src="/peri/pugedit/editor.js"></script>
</body>
</html>
`;

export const PUGEDIT_JS = `'use strict';
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var SAMPLE = {
    pug: [
      'h2= (Cfg.Cmp && Cfg.Cmp.Nam) || "Receipt"',
      'p FN #{Fis.FN || "-"}  #{ESR.D || ""}',
      'table',
      '  each pos in ESR.PosA || []',
      '    tr',
      '      td= pos.Dsc',
      '      td= pos.Amt',
      'p Total #{ESR.T || ""}',
      'each tag in Fis.Tag || []',
      '  p #{tag.Name}: #{tag.Value}',
      ''
    ].join('\\n'),
    ejs: [
      '<h2><%= (Cfg.Cmp && Cfg.Cmp.Nam) || "Receipt" %></h2>',
      '<p>FN <%= Fis.FN || "-" %></p>',
      '<% (ESR.PosA || []).forEach(function (pos) { %><p><%= pos.Dsc %> <%= pos.Amt %></p><% }) %>',
      '<p>Total <%= ESR.T || "" %></p>',
      ''
    ].join('\\n')
  };
  var params = new URLSearchParams(location.search);
  $('rn').value = params.get('RN') || params.get('rn') || 'def';
  $('template').value = SAMPLE.pug;

  function query(extra) {
    var q = new URLSearchParams({ RN: $('rn').value });
    Object.keys(extra).forEach(function (k) { if (extra[k] !== '') q.set(k, extra[k]); });
    return q.toString();
  }

  function say(text, kind) {
    var m = $('message');
    m.textContent = text;
    m.className = kind || '';
  }

  async function failure(res) {
    var text = await res.text();
    try {
      var doc = JSON.parse(text);
      var r = doc.Result || (doc.TraC && doc.TraC.Result) || {};
      return (r.ErrorCode ? r.ErrorCode + ': ' : '') + (r.UserMessage || r.Message || text);
    } catch (e) {
      return res.status + ' ' + text;
    }
  }

  var seq = 0;
  async function preview() {
    var mine = ++seq;
    var res;
    try {
      res = await fetch('/peri/pugedit/preview?' + query({ type: $('type').value, FN: $('fn').value.trim() }), {
        method: 'POST', headers: { 'content-type': 'text/plain; charset=utf-8', accept: 'application/json' }, body: $('template').value
      });
    } catch (e) {
      say('The service does not answer: ' + e, 'error');
      return;
    }
    if (mine !== seq) return; // a later edit is on its way
    // an error is a Result document (status 200 too when the profile sets HttpServer_respond200)
    if (!res.ok || (res.headers.get('content-type') || '').indexOf('text/html') < 0) {
      say(await failure(res), 'error');
      return;
    }
    var html = await res.text();
    if (mine !== seq) return;
    var fn = res.headers.get('x-preview-fn');
    $('shown').textContent = fn ? 'showing receipt FN ' + fn : 'no receipt yet: empty data';
    $('preview').srcdoc = html;
    say('', '');
  }

  var timer;
  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(preview, 250);
  }

  async function loadList(select) {
    var res = await fetch('/peri/layout?' + query({}), { headers: { accept: 'application/json' } });
    if (!res.ok) { say(await failure(res), 'error'); return; }
    var doc = await res.json();
    var list = $('layouts');
    list.textContent = '';
    var none = document.createElement('option');
    none.value = '';
    none.textContent = '(new)';
    list.appendChild(none);
    (doc.layouts || []).forEach(function (l) {
      var o = document.createElement('option');
      o.value = l.name;
      o.textContent = l.name + '.' + l.layoutType.toLowerCase();
      list.appendChild(o);
    });
    list.value = select || '';
  }

  async function loadLayout(name) {
    if (!name) return;
    var res = await fetch('/peri/layout/source?' + query({ name: name }), { headers: { accept: 'application/json' } });
    if (!res.ok) { say(await failure(res), 'error'); return; }
    $('template').value = await res.text();
    $('name').value = name;
    $('type').value = res.headers.get('x-layout-type') || 'pug';
    preview();
  }

  async function save() {
    var name = $('name').value.trim();
    var type = $('type').value;
    var form = new FormData();
    form.append('file', new Blob([$('template').value], { type: 'text/plain' }), name + '.' + type);
    var url = '/peri/layout?' + query({});
    var res = await fetch(url, { method: 'POST', body: form, headers: { accept: 'application/json' } });
    if (res.status === 409) {
      // the name is taken: this is an edit of that layout
      var again = new FormData();
      again.append('file', new Blob([$('template').value], { type: 'text/plain' }), name + '.' + type);
      res = await fetch(url, { method: 'PUT', body: again, headers: { accept: 'application/json' } });
    }
    if (!res.ok) { say(await failure(res), 'error'); return; }
    var doc = await res.json();
    var saved = doc.layouts && doc.layouts[0];
    say('Saved ' + (saved ? saved.filePath : name), 'ok');
    await loadList(name);
  }

  $('template').addEventListener('input', schedule);
  $('fn').addEventListener('input', schedule);
  $('type').addEventListener('change', function () {
    var t = $('template');
    var other = $('type').value === 'pug' ? 'ejs' : 'pug';
    if (t.value === SAMPLE[other]) t.value = SAMPLE[$('type').value];
    preview();
  });
  $('rn').addEventListener('change', function () { loadList(''); preview(); });
  $('layouts').addEventListener('change', function () { loadLayout($('layouts').value); });
  $('save').addEventListener('click', function () { save(); });
  $('template').addEventListener('keydown', function (e) {
    // a tab indents (pug is indentation-based) instead of leaving the editor
    if (e.key !== 'Tab') return;
    e.preventDefault();
    var t = e.target;
    var s = t.selectionStart;
    t.setRangeText('  ', s, t.selectionEnd, 'end');
    schedule();
  });
  loadList('');
  preview();
})();
`;
