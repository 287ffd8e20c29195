/**
 * How a record's JSON text is kept in the journal's `data` column (both stores): compressed, since the text
 * is a receipt's every field and most of it is the same keys again and again.
 *
 * Two forms are read. Records are written in the dictionary form: the byte 0x06, then raw deflate (level 1)
 * with DICTIONARY_1 as its preset dictionary. The dictionary holds the keys and values nearly every record
 * repeats, so that a receipt compresses to about a fifth of its text at half the CPU of deflate level 3
 * without one (the compression runs for every record, on the journal's writer). Journals written before
 * hold plain raw deflate, which is read as it is. 0x06 cannot start a raw deflate stream (its block type
 * bits, 11, are reserved), so the first byte tells the forms apart.
 *
 * DICTIONARY_1 must never change: the records written with it need it to be read. A better dictionary is a
 * new marker byte with a new constant beside this one.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';

const DICTIONARY_MARKER = 0x06;

/**
 * Record text as it recurs (the least frequent parts first: zlib finds matches in the whole window, and
 * those nearest the end cost the fewest bits).
 */
const DICTIONARY_1 = Buffer.from(
  [
    '{"_":"Cfg","SQ":"","RN":"def","TS":"20","Cfg":{"Cmp":{"Nam":"","Adr":"","Zip":"","City":"","Ctry":"","TaxId":""}}}',
    '{"_":"log","SQ":"","RN":"def","TS":"20","Event":"START_EFR","Version":""}',
    '{"_":"Audit","SQ":"","RN":"def","TS":"20","Audit":{"Rsn":""}}',
    '"Ctm":{"Nam":"","Adr":"","Zip":"","City":"","Ctry":"","TaxId":""},"Warning":[""],"Tag":["',
    '"Mod":[{"_":"Mod","Dsc":"","Amt":"-"}],"RTN":"","RFN":"","Rsn":"","NFS":"","Code":"","Payload":"EFR1;def;"',
    '{"_":"Pay","Dsc":"Card","PayG":"card","Amt":""}',
    '{"_":"Tra","SQ":"","RN":"def","TS":"20","BC":"sale","ESR":{"TL":"1","TT":"1","T":"","PosA":[',
    '{"_":"Pos","PN":"1","Dsc":"","TaxG":"A","Qty":"1","Pri":"","Amt":""},{"_":"Pos","PN":"2","Dsc":"","TaxG":"B","Qty":"2","Pri":"0.","Amt":"1."}',
    '],"PayA":[{"_":"Pay","Dsc":"Cash","PayG":"cash","Amt":""}],"TaxA":[',
    '{"_":"Tax","TaxG":"A","Prc":"20.00","Net":"","TAmt":"","Amt":""},{"_":"Tax","TaxG":"B","Prc":"10.00","Net":"","TAmt":"","Amt":""}',
    '],"D":"2026-","TN":""},"Fis":{"D":"2026-","FN":""}}',
  ].join(''),
  'utf8',
);

/** The `data` column of a record's text. */
export function packRecordText(text: string): Buffer {
  const packed = deflateRawSync(text, { level: 1, dictionary: DICTIONARY_1 });
  const out = Buffer.allocUnsafe(packed.length + 1);
  out[0] = DICTIONARY_MARKER;
  packed.copy(out, 1);
  return out;
}

/** A record's text from its `data` column (either form). */
export function unpackRecordText(data: Buffer): string {
  if (data.length > 0 && data[0] === DICTIONARY_MARKER) return inflateRawSync(data.subarray(1), { dictionary: DICTIONARY_1 }).toString('utf8');
  return inflateRawSync(data).toString('utf8');
}
