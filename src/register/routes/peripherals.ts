/**
 * The peripherals (docs/peripherals.md): POST /peri/print, GET /peri/print/state,
 * POST /peri/display, POST /peri/drawer, POST /peri/drawer/wait. The register's printer comes from its
 * profile (Printer, Printer_Port); without one the routes answer 404 #NO_PRINTER.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FiscalError } from '../../shared/errors.js';
import { type Format, type Obj, responseFormat } from '../codec/index.js';
import type { ServiceContext } from '../context.js';
import type { PrinterDriver, PrinterStatus } from '../peripherals/driver.js';
import { DEFAULT_DRAWER_TIMEOUT_S, drawerTimeoutOf, waitForDrawerClosed } from '../peripherals/drawer-wait.js';
import { displayLines, printLines, textPrintout } from '../peripherals/escpos-commands.js';
import { writePrintFile } from '../peripherals/print-files.js';
import { printLogOn, printerOf } from '../peripherals/printer-config.js';
import { PRINT_TIMEOUT_MS } from '../peripherals/receipt-printout.js';
import { failureOf, failureReply } from '../respond.js';
import { rnOfQuery } from '../register-number.js';
import { queryOf, send, sendDoc } from './http.js';

/** A status or a short command: answered within this time. */
const SHORT_TIMEOUT_MS = 10_000;
let periFiles = 0;

/** The Print_Log file of a POST /peri/print: `peri-<ms since 1970>-<counter>.txt`, unique in the process. */
function periFileName(): string {
  periFiles += 1;
  return `peri-${Date.now()}-${periFiles}.txt`;
}

/** The most lines POST /peri/print takes. */
const MAX_PRINT_LINES = 2000;

/** The answer follows Accept only: a text/plain body starting with `<` is print text, not XML. */
function formatOfPeri(req: FastifyRequest): Format {
  return responseFormat(req.headers.accept, undefined);
}

interface Peri {
  rn: string;
  printer: PrinterDriver;
}

function peri(ctx: ServiceContext, req: FastifyRequest): Peri {
  const rn = rnOfQuery(ctx, queryOf(req));
  const printer = printerOf(ctx, rn);
  if (!printer) throw new FiscalError('#NO_PRINTER', { rn });
  return { rn, printer };
}

async function answer(ctx: ServiceContext, req: FastifyRequest, res: FastifyReply, fn: () => Promise<FastifyReply>): Promise<FastifyReply> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof FiscalError)) req.log.error({ err: e }, 'peripheral request failed');
    const q = queryOf(req);
    const lang = ctx.registers.lang(ctx.registers.get(q.rn ?? 'def'));
    return send(res, failureReply(formatOfPeri(req), 'Result', failureOf(e, lang), ctx.profiles.settings('def').respond200));
  }
}

function ok(req: FastifyRequest, res: FastifyReply, extra: Obj = {}): FastifyReply {
  return sendDoc(res, formatOfPeri(req), 'Result', { RC: 'OK', ...extra });
}

function bodyOf(req: FastifyRequest): string {
  return typeof req.body === 'string' ? req.body : '';
}

/** The printer state of the spec: ModuleName, ID, ZI and SimpleState (null where the printer does not say). */
function stateOf(moduleName: string, id: string | null, zi: number, s: PrinterStatus): { typed: Record<string, unknown>; model: Obj } {
  const simple = {
    DayOpen: null,
    ZRequired: null,
    DrawerOpen: s.drawerOpen,
    PaperNearEnd: s.paperNearEnd,
    PaperEnd: s.paperEnd,
    CoverOpen: s.coverOpen,
    MemAlmostFull: null,
    MemFull: null,
    NextZRequired: null,
    CertExpires: null,
  };
  const model: Obj = { ModuleName: moduleName, ZI: String(zi) };
  if (id !== null) model.ID = id;
  const simpleModel: Obj = {};
  for (const [k, v] of Object.entries(simple)) if (v !== null) simpleModel[k] = String(v);
  model.SimpleState = simpleModel;
  return { typed: { ModuleName: moduleName, ID: id, ZI: zi, SimpleState: simple }, model };
}

export function peripheralRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post('/peri/print', async (req, res) =>
    answer(ctx, req, res, async () => {
      const { rn, printer } = peri(ctx, req);
      const text = bodyOf(req);
      if (!text.trim()) throw new FiscalError('#EMPTY_BODY', { expected: 'text/plain lines' });
      const lines = printLines(text);
      if (lines.length > MAX_PRINT_LINES) throw new FiscalError('#INVALID_VALUE', { field: 'body', detail: `at most ${MAX_PRINT_LINES} lines, got ${lines.length}` });
      const plain = lines.map((l) => `${l}\n`).join('');
      await printer.print({ escpos: textPrintout(lines), text: plain }, { ms: PRINT_TIMEOUT_MS });
      if (printLogOn(ctx, rn)) writePrintFile(ctx.dataDir, rn, periFileName(), plain);
      return ok(req, res);
    }),
  );

  app.get('/peri/print/state', async (req, res) =>
    answer(ctx, req, res, async () => {
      const { rn, printer } = peri(ctx, req);
      const status = await printer.status({ ms: SHORT_TIMEOUT_MS });
      const identity = await printer.identity({ ms: SHORT_TIMEOUT_MS });
      const { typed, model } = stateOf(identity.moduleName, identity.id, ctx.registers.get(rn)?.state.zi ?? 0, status);
      const format = formatOfPeri(req);
      if (format === 'json') return res.code(200).type('application/json; charset=utf-8').send(JSON.stringify({ PrinterState: typed }));
      return sendDoc(res, format, 'PrinterState', model);
    }),
  );

  app.post('/peri/display', async (req, res) =>
    answer(ctx, req, res, async () => {
      const { printer } = peri(ctx, req);
      await printer.display(displayLines(bodyOf(req)), { ms: SHORT_TIMEOUT_MS });
      return ok(req, res);
    }),
  );

  app.post('/peri/drawer', async (req, res) =>
    answer(ctx, req, res, async () => {
      const { printer } = peri(ctx, req);
      await printer.openDrawer({ ms: SHORT_TIMEOUT_MS });
      return ok(req, res);
    }),
  );

  app.post('/peri/drawer/wait', async (req, res) =>
    answer(ctx, req, res, async () => {
      const { rn, printer } = peri(ctx, req);
      const timeoutS = drawerTimeoutOf(ctx.profiles.settings(rn).raw.get('drawer_timeout') ?? String(DEFAULT_DRAWER_TIMEOUT_S));
      await waitForDrawerClosed(printer, res, rn, timeoutS);
      return ok(req, res);
    }),
  );
}
