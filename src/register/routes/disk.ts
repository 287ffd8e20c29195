/** GET /disk (storage record), GET /disk/dir (listing of the data folder), POST /disk/clean. */
import type { FastifyInstance } from 'fastify';
import type { Obj, Value } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import { type CleanResult, cleanDisk } from '../maintenance/clean.js';
import { cleanOptionsOf } from '../maintenance/clean-options.js';
import { diskQuotaBytes } from '../maintenance/disk-quota.js';
import { folderListing, scanFolder, storageModel, storageRecord } from '../maintenance/disk-usage.js';
import { guarded, queryOf, sendJson } from './http.js';

const MB = 1_048_576;
const mb = (bytes: number): number => Number((bytes / MB).toFixed(3));

/** What cleaning did, beside the storage record (typed JSON). */
function cleanSummary(r: CleanResult): Record<string, unknown> {
  const journal: Record<string, unknown> = {};
  for (const j of r.journal) journal[j.rn] = { removed: j.removed, firstSQ: j.cut + 1, limit: j.limit };
  return {
    Before: mb(r.before),
    Quota: mb(r.quota),
    Target: mb(r.target),
    Log: { files: r.files.log.files, size: r.files.log.bytes },
    Export: { files: r.files.export.files, size: r.files.export.bytes },
    Backup: { files: r.files.backup.files, size: r.files.backup.bytes },
    Journal: journal,
  };
}

/** The same for XML: attributes, and one `Register` element per register. */
function cleanModel(r: CleanResult): Obj {
  const files = (k: keyof CleanResult['files']): Obj => ({ files: String(r.files[k].files), size: String(r.files[k].bytes) });
  const registers: Value[] = r.journal.map((j) => ({ _: 'Register', RN: j.rn, removed: String(j.removed), firstSQ: String(j.cut + 1), limit: j.limit }));
  return {
    Before: mb(r.before).toFixed(3),
    Quota: mb(r.quota).toFixed(3),
    Target: mb(r.target).toFixed(3),
    Log: files('log'),
    Export: files('export'),
    Backup: files('backup'),
    Journal: registers,
  };
}

export function diskRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/disk', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      const record = storageRecord(await scanFolder(ctx.dataDir));
      return sendJson(res, req, 'Disk', record, storageModel(record));
    }),
  );

  app.get('/disk/dir', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      const text = folderListing(await scanFolder(ctx.dataDir), ctx.dataDir);
      return res.code(200).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send(text);
    }),
  );

  app.post('/disk/clean', async (req, res) =>
    guarded(ctx, req, res, 'Result', async () => {
      const options = cleanOptionsOf(queryOf(req), ctx.clock.now(), diskQuotaBytes(ctx));
      const result = await cleanDisk(ctx, options);
      return sendJson(res, req, 'Disk', { ...result.record, Clean: cleanSummary(result) }, storageModel(result.record, { Clean: cleanModel(result) }));
    }),
  );
}
