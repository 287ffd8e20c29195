/**
 * Text for an ESC/POS printer in code page PC858 (PC850 with the euro sign; `ESC t 19` on Epson-compatible
 * printers): the Western European letters and €. Characters it lacks are printed as their base letter
 * (č as c, ł as l) rather than dropped, and as "?" when there is none.
 */

/** PC858 bytes 0x80..0xFF. */
const HIGH =
  'ÇüéâäàåçêëèïîìÄÅ' +
  'ÉæÆôöòûùÿÖÜø£Ø×ƒ' +
  'áíóúñÑªº¿®¬½¼¡«»' +
  '░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐' +
  '└┴┬├─┼ãÃ╚╔╩╦╠═╬¤' +
  'ðÐÊËÈ€ÍÎÏ┘┌█▄¦Ì▀' +
  'ÓßÔÒõÕµþÞÚÛÙýÝ¯´' +
  '\u00ad±‗¾¶§÷¸°¨·¹³²■\u00a0';

export const PC858_SELECT = 19;

const BYTE_OF = new Map<string, number>(Array.from(HIGH).map((c, i) => [c, 0x80 + i]));

/** Letters without a decomposition into base letter and accent. */
const FALLBACK: Readonly<Record<string, string>> = {
  ł: 'l', Ł: 'L', đ: 'd', Đ: 'D', œ: 'oe', Œ: 'OE', ħ: 'h', Ħ: 'H', ı: 'i', ŀ: 'l', Ŀ: 'L',
  '‘': "'", '’': "'", '‚': ',', '“': '"', '”': '"', '„': '"', '–': '-', '—': '-', '…': '...', '•': '*', '\t': ' ',
};

function byteOf(c: string): number | undefined {
  const code = c.codePointAt(0) ?? 0x3f;
  if (code >= 0x20 && code < 0x7f) return code;
  return BYTE_OF.get(c);
}

export function encodePc858(text: string): Buffer {
  const out: number[] = [];
  for (const c of text) {
    const direct = byteOf(c);
    if (direct !== undefined) {
      out.push(direct);
      continue;
    }
    const replacement = FALLBACK[c] ?? c.normalize('NFD').replace(/\p{M}/gu, '');
    const bytes = Array.from(replacement).map(byteOf);
    if (replacement !== c && replacement !== '' && bytes.every((b) => b !== undefined)) out.push(...(bytes as number[]));
    else out.push(0x3f);
  }
  return Buffer.from(out);
}
