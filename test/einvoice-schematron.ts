/**
 * Runs the official e-invoice rules over files with Saxon-HE (Debian libsaxonhe-java, OpenJDK): the EN 16931
 * UBL rules as published (compiled XSLT), the XRechnung rules from their Schematron source, which this helper
 * turns into XSLT itself (patterns, rules, let, assert, report, include: what the XRechnung files use). One
 * Saxon run per rule set compiles the stylesheet once and validates a whole folder.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import { vectorPath } from '../src/shared/testing.js';

export const SAXON_JAR = '/usr/share/java/Saxon-HE.jar';
export const EN16931_UBL = vectorPath('einvoice', 'en16931', 'ubl', 'EN16931-UBL-validation.xslt');
export const XRECHNUNG_UBL_SCH = vectorPath('einvoice', 'xrechnung', 'schematron', 'ubl', 'XRechnung-UBL-validation.sch');

export interface Failure {
  id: string;
  flag: string;
  text: string;
}

const SCH = 'http://purl.oclc.org/dsdl/schematron';

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

type El = { localName: string; namespaceURI: string | null; getAttribute(n: string): string | null; childNodes: ArrayLike<Nd> };
type Nd = { nodeType: number; nodeValue: string | null } & Partial<El>;

function children(e: El): El[] {
  return Array.from(e.childNodes).filter((n): n is Nd & El => n.nodeType === 1 && n.namespaceURI === SCH) as El[];
}

function message(e: El): string {
  return Array.from(e.childNodes).map((n) => {
    if (n.nodeType === 3) return esc(n.nodeValue ?? '');
    const c = n as unknown as El;
    if (c.localName === 'name') return '<xsl:value-of select="name(.)"/>';
    if (c.localName === 'value-of') return `<xsl:value-of select="${esc(c.getAttribute('select') ?? '')}"/>`;
    return '';
  }).join('');
}

/** XSLT 3.0 (Saxon-HE runs it) of a Schematron schema with its includes: every pattern, first matching rule wins. */
export function schematronToXslt(schFile: string): string {
  const parse = (file: string): El => new DOMParser().parseFromString(readFileSync(file, 'utf8'), 'text/xml').documentElement as unknown as El;
  const schema = parse(schFile);
  const patterns: El[] = [];
  for (const c of children(schema)) {
    if (c.localName === 'pattern') patterns.push(c);
    if (c.localName === 'include') patterns.push(parse(resolve(dirname(schFile), c.getAttribute('href') ?? '')));
  }
  const ns = children(schema).filter((c) => c.localName === 'ns').map((c) => ` xmlns:${c.getAttribute('prefix') ?? ''}="${esc(c.getAttribute('uri') ?? '')}"`).join('');
  const globals: string[] = [];
  const templates: string[] = [];
  patterns.forEach((p, i) => {
    const rules = children(p).filter((c) => c.localName === 'rule');
    for (const l of children(p).filter((c) => c.localName === 'let')) globals.push(`<xsl:variable name="${l.getAttribute('name') ?? ''}" select="${esc(l.getAttribute('value') ?? '')}"/>`);
    rules.forEach((r, j) => {
      const body = children(r).map((c) => {
        if (c.localName === 'let') return `<xsl:variable name="${c.getAttribute('name') ?? ''}" select="${esc(c.getAttribute('value') ?? '')}"/>`;
        const assert = c.localName === 'assert';
        if (!assert && c.localName !== 'report') return '';
        const test = esc(c.getAttribute('test') ?? '');
        const tag = assert ? 'svrl:failed-assert' : 'svrl:successful-report';
        return `<xsl:if test="${assert ? `not(${test})` : test}"><${tag} id="${esc(c.getAttribute('id') ?? '')}" flag="${esc(c.getAttribute('flag') ?? '')}"><svrl:text>${message(c)}</svrl:text></${tag}></xsl:if>`;
      }).join('');
      templates.push(`<xsl:template match="${esc(r.getAttribute('context') ?? '')}" mode="p${i}" priority="${1000 - j}">${body}<xsl:apply-templates select="@*|node()" mode="p${i}"/></xsl:template>`);
    });
    templates.push(`<xsl:template match="@*|node()" mode="p${i}" priority="-100"><xsl:apply-templates select="@*|node()" mode="p${i}"/></xsl:template>`);
  });
  return `<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform" xmlns:svrl="http://purl.oclc.org/dsdl/svrl"${ns}>
${globals.join('\n')}
<xsl:template match="/"><svrl:schematron-output>${patterns.map((_, i) => `<xsl:apply-templates select="/" mode="p${i}"/>`).join('')}</svrl:schematron-output></xsl:template>
${patterns.map((_, i) => `<xsl:template match="/" mode="p${i}"><xsl:apply-templates select="node()" mode="p${i}"/></xsl:template>`).join('\n')}
${templates.join('\n')}
</xsl:stylesheet>`;
}

export function saxonAvailable(): string | undefined {
  if (!existsSync(SAXON_JAR)) return `${SAXON_JAR} is missing (apt-get install -y libsaxonhe-java)`;
  return undefined;
}

function failuresOf(svrl: string): Failure[] {
  const out: Failure[] = [];
  for (const m of svrl.matchAll(/<svrl:failed-assert\b([^>]*)>([\s\S]*?)<\/svrl:failed-assert>/g)) {
    const attrs = m[1] ?? '';
    out.push({ id: /\bid="([^"]*)"/.exec(attrs)?.[1] ?? '', flag: /\bflag="([^"]*)"/.exec(attrs)?.[1] ?? '', text: (m[2] ?? '').replace(/<[^>]+>/g, '').trim() });
  }
  return out;
}

/** Validates every file of `files` (name → XML) with the stylesheet; the failed asserts by file name. */
export function validateAll(xslt: string, files: Readonly<Record<string, string>>, work: string): Record<string, Failure[]> {
  const inDir = join(work, 'in');
  const outDir = join(work, 'out');
  mkdirSync(inDir, { recursive: true });
  mkdirSync(outDir, { recursive: true });
  for (const [name, xml] of Object.entries(files)) writeFileSync(join(inDir, name), xml);
  execFileSync('java', ['-cp', SAXON_JAR, 'net.sf.saxon.Transform', `-s:${inDir}`, `-xsl:${xslt}`, `-o:${outDir}`], { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  const result: Record<string, Failure[]> = {};
  for (const name of readdirSync(outDir)) result[name] = failuresOf(readFileSync(join(outDir, name), 'utf8'));
  return result;
}

export function fatal(failures: readonly Failure[] | undefined): string[] {
  return (failures ?? []).filter((f) => f.flag === 'fatal').map((f) => f.id);
}
