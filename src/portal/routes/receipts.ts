/**
 * GET /r/{DH}: the digital receipt page (public, no login: the document handle is the secret). HTML drawn with the
 * register service's default template (src/register/render/templates/fiscal.pug) and receipt view, or with
 * `?fmt=pdf` the service's receipt PDF (`width` 42 or 48 columns as /render/pdf). An invoice with an e-invoice
 * (ESR.DD) links it: `?fmt=einvoice` answers its EN 16931 UBL document, made by the service's own code from the
 * archived record and the Cfg in force then (the document the service delivered). Several receipts sharing the
 * handle: the HTML shows all, the PDF and the e-invoice the one `?sq=` names (default the first).
 *
 * Anything that is not a receipt (a malformed handle, an unknown register or transaction handle, a record that is
 * no receipt) is the same small 404 page, uncached (the receipt may arrive with the instance's next archive
 * batch). Misses are limited per client (services/guess-limit.ts; IPv6 clients by their /64, the address from
 * X-Forwarded-For when the portal trusts its proxy): beyond the limit a miss is 429; the handle is looked up first,
 * so a receipt that exists is shown whatever the count.
 * Found receipts never change: cached privately for a day; the page is not indexed and sends no Referer.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Lang } from '../../shared/errors.js';
import { DEFAULT_WIDTH, WIDTHS, einvoiceOfRecord, hasEinvoice, qrPngDataUrl, receiptHtml, receiptPdf, receiptView } from '../../register/render/index.js';
import type { PortalContext } from '../context.js';
import { GuessLimit, type GuessLimitOptions, clientKey } from '../services/guess-limit.js';
import { type ArchivedReceipt, receiptsOfHandle } from '../services/receipts.js';

/** The HTML QR image as GET /render draws it. */
const HTML_QR = { ecLevel: 'M', size: 4, margin: 4 } as const;

const COMMON_HEADERS: Readonly<Record<string, string>> = {
  'x-robots-tag': 'noindex, nofollow',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'",
};

function page(title: string, text: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>`
    + '<style>body{font:15px/1.4 Arial,sans-serif;margin:3em auto;max-width:30em;padding:0 1em;color:#222}</style></head>'
    + `<body><h1>${title}</h1><p>${text}</p></body></html>`;
}

const NOT_FOUND_PAGE = page('Receipt not found', 'No receipt has this address. Check the address printed on your receipt; a receipt may take a few minutes to appear. / Kein Beleg unter dieser Adresse.');
const TOO_MANY_PAGE = page('Too many requests', 'Too many addresses that name no receipt were asked for. Try again later.');

function send(res: FastifyReply, status: number, type: string, body: string | Buffer, cache: string): FastifyReply {
  return res.code(status).headers({ ...COMMON_HEADERS, 'cache-control': cache }).type(type).send(body);
}

/** The link to an invoice's e-invoice, in the receipt's language. */
const EINVOICE_LINK: Readonly<Record<Lang, string>> = {
  en: 'E-invoice (XML, EN 16931)',
  de: 'E-Rechnung (XML, EN 16931)',
  fr: 'Facture électronique (XML, EN 16931)',
  nl: 'E-factuur (XML, EN 16931)',
};

async function receiptHtmlOf(r: ArchivedReceipt): Promise<string> {
  const plain = receiptView({ record: r.record, cfg: r.cfg, lang: r.lang });
  const view = plain.code ? { ...plain, qr: qrPngDataUrl(plain.code, HTML_QR) } : plain;
  // the default template: a register's own layouts stay in its instance's data folder, which the portal does not have
  const html = await receiptHtml(view, r.record, r.cfg, undefined);
  // the rule of the service that makes it: a fiscal invoice with DD (a training one links nothing)
  if (!hasEinvoice(r.record)) return html;
  const link = `<p class="einvoice" style="text-align:center"><a href="?fmt=einvoice&amp;sq=${r.sq}" download>${EINVOICE_LINK[r.lang]}</a></p>`;
  const end = html.lastIndexOf('</body>');
  return end < 0 ? html + link : html.slice(0, end) + link + html.slice(end);
}

/** Several receipts: the first document with the bodies of the others appended. */
function joined(docs: readonly string[]): string {
  const [first, ...rest] = docs;
  if (first === undefined) return '';
  const bodies = rest.map((d) => /<body[^>]*>([\s\S]*)<\/body>/i.exec(d)?.[1] ?? '').join('');
  const end = first.lastIndexOf('</body>');
  return end < 0 ? first + bodies : first.slice(0, end) + bodies + first.slice(end);
}

function fileName(r: ArchivedReceipt): string {
  const fn = typeof r.record.data.Fis === 'object' && r.record.data.Fis !== null && !Array.isArray(r.record.data.Fis) ? r.record.data.Fis.FN : undefined;
  const safe = typeof fn === 'string' ? fn.replace(/[^A-Za-z0-9._-]/g, '_') : '';
  return safe ? `receipt-${safe}.pdf` : 'receipt.pdf';
}

export interface ReceiptRouteOptions {
  guessLimit?: GuessLimitOptions;
}

export function receiptRoutes(app: FastifyInstance, ctx: PortalContext, options: ReceiptRouteOptions = {}): void {
  const limit = new GuessLimit(options.guessLimit, () => ctx.clock.now().getTime());
  app.get('/r/:dh', {
    config: { publicRoute: true },
    schema: { hide: true },
  }, async (req: FastifyRequest, res: FastifyReply) => {
    const dh = (req.params as { dh?: string }).dh ?? '';
    const q = req.query as Record<string, string | undefined>;
    // IPv6 clients by their /64 (one host has many addresses); the address is the proxy's client with trustProxy
    const address = clientKey(req.ip);
    const fmt = (q.fmt ?? 'html').toLowerCase();
    const width = q.width === undefined || q.width === '' ? DEFAULT_WIDTH : Number(q.width);
    // looked up first: a receipt that exists is never refused; only misses count and are refused
    const receipts = await receiptsOfHandle(ctx, dh);
    if (receipts.length === 0) {
      if (limit.blocked(address)) {
        res.header('retry-after', String(limit.retryAfter(address)));
        return send(res, 429, 'text/html; charset=utf-8', TOO_MANY_PAGE, 'no-store');
      }
      limit.miss(address);
      return send(res, 404, 'text/html; charset=utf-8', NOT_FOUND_PAGE, 'no-store');
    }
    const bySq = q.sq !== undefined ? receipts.filter((r) => String(r.sq) === q.sq) : receipts;
    if (bySq.length === 0 || (fmt !== 'html' && fmt !== 'pdf' && fmt !== 'einvoice') || !WIDTHS.includes(width)) {
      return send(res, 404, 'text/html; charset=utf-8', NOT_FOUND_PAGE, 'no-store');
    }
    if (fmt === 'einvoice') {
      const r = bySq[0] as ArchivedReceipt;
      let doc;
      try {
        doc = einvoiceOfRecord(r.record, r.cfg);
      } catch {
        // the archived base data no longer make a valid one: no document rather than a broken one
        doc = undefined;
      }
      if (!doc) return send(res, 404, 'text/html; charset=utf-8', NOT_FOUND_PAGE, 'no-store');
      res.header('content-disposition', `attachment; filename="einvoice-${doc.number.replace(/[^A-Za-z0-9._-]/g, '_')}.xml"`);
      return send(res, 200, 'application/xml; charset=utf-8', doc.xml, 'private, max-age=86400');
    }
    if (fmt === 'pdf') {
      const r = bySq[0] as ArchivedReceipt;
      const view = receiptView({ record: r.record, cfg: r.cfg, lang: r.lang });
      res.header('content-disposition', `inline; filename="${fileName(r)}"`);
      return send(res, 200, 'application/pdf', await receiptPdf(view, width), 'private, max-age=86400');
    }
    return send(res, 200, 'text/html; charset=utf-8', joined(await Promise.all(bySq.map(receiptHtmlOf))), 'private, max-age=86400');
  });
}
