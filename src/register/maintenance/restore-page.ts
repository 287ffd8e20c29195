/** The browser page of GET /backup/restore: a form (path or file upload) and the progress of GET /backup/info. */
import type { RestoreInfo } from './restore.js';

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

export function restorePage(info: RestoreInfo): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>EFR restore</title>
<style>body{font-family:sans-serif;margin:2em;max-width:50em}input[type=text]{width:100%}pre{background:#f4f4f4;padding:.5em;white-space:pre-wrap}</style></head>
<body><h1>Restore a register</h1>
<p>A backup is restored only onto a new, unused instance: refused with IN_USE when the register has journal
records or its folders exist, and with ONLINE when this instance has registered anything since it started.</p>
<form method="post" action="/backup/restore" enctype="multipart/form-data">
<p><label for="path">Backup file or folder on this machine (a folder: its .zip files in name order, e.g. 0001.zip, 0002.zip)</label>
<input type="text" id="path" name="path" placeholder="/var/backups/efr/def"></p>
<p><label for="file">or upload a backup zip</label> <input type="file" id="file" name="file" accept=".zip,application/zip"></p>
<p><label for="rn">Register (RN; empty: the backup's)</label> <input type="text" id="rn" name="rn" size="20"></p>
<p><button type="submit">Restore</button></p>
</form>
<h2>Progress</h2>
<pre id="info">${esc(JSON.stringify(info, null, 2))}</pre>
<script>
async function poll() {
  try {
    const r = await fetch('/backup/info', { cache: 'no-store' });
    const info = await r.json();
    document.getElementById('info').textContent = JSON.stringify(info, null, 2);
    if (info.state === 'RUNNING') setTimeout(poll, 500);
  } catch (e) { /* the page stays as it is */ }
}
${info.state === 'RUNNING' ? 'poll();' : ''}
document.querySelector('form').addEventListener('submit', () => setTimeout(poll, 300));
</script>
</body></html>`;
}
