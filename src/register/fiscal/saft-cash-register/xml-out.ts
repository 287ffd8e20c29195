/**
 * The streaming XML writer of the SAF-T Cash Register files: one element per line, tab-indented, text
 * escaped by the codec's rules; what was written is handed over in chunks (`take`), so a file of any size
 * is never held whole.
 */
import { escapeText } from '../../codec/xml-text.js';

/** XML text written line by line, tab-indented; `take` hands over what was written so far. */
export class XmlOut {
  private out: string[] = [];
  private chars = 0;
  constructor(private depth = 0) {}
  private push(line: string): void {
    this.out.push(line);
    this.chars += line.length + 1;
  }
  open(name: string): void {
    this.push(`${'\t'.repeat(this.depth)}<${name}>`);
    this.depth += 1;
  }
  close(name: string): void {
    this.depth -= 1;
    this.push(`${'\t'.repeat(this.depth)}</${name}>`);
  }
  leaf(name: string, value: string | number | undefined, max?: number): void {
    if (value === undefined) return;
    let v = String(value);
    if (max !== undefined && v.length > max) v = [...v].slice(0, max).join('');
    this.push(`${'\t'.repeat(this.depth)}<${name}>${escapeText(v)}</${name}>`);
  }
  raw(line: string): void {
    this.push(line);
  }
  /** characters written and not yet taken */
  get size(): number {
    return this.chars;
  }
  take(): string {
    if (this.out.length === 0) return '';
    const s = `${this.out.join('\n')}\n`;
    this.out = [];
    this.chars = 0;
    return s;
  }
}
