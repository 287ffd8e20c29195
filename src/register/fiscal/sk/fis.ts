/**
 * What a Slovak receipt carries in Fis and prints (the mandatory lines in Slovak): the seller's DIČ, IČ DPH and
 * IČO, the cash register code, the receipt number, the paragon or invoice number, the OKP and, while eKasa has
 * not answered, the PKP and the mark `OFF-LINE DOKLAD` with the offline QR code; once the receipt id (UID) is
 * known, the UID and its QR code instead (withUid). docs/countries/sk.md, "What is printed".
 */
import { type Obj, lines, str } from '../../codec/index.js';
import type { SellerIds } from './ids.js';
import { onlineQr } from './qr.js';
import type { EkasaReceipt } from './receipt.js';

/** The tags only a receipt without its UID prints. */
const OFFLINE_TAGS: ReadonlySet<string> = new Set(['PKP', 'Offline']);

export function tagsOf(seller: SellerIds, cashRegisterCode: string, receipt: EkasaReceipt, okp: string, pkp: string): Obj[] {
  const tags: Obj[] = [{ Name: 'DIC', Label: 'DIČ:', Value: seller.dic }];
  if (seller.icDph) tags.push({ Name: 'IcDph', Label: 'IČ DPH:', Value: seller.icDph });
  if (seller.ico) tags.push({ Name: 'Ico', Label: 'IČO:', Value: seller.ico });
  tags.push({ Name: 'KodPokladnice', Label: 'Kód pokladnice:', Value: cashRegisterCode });
  tags.push({ Name: 'TypDokladu', Label: 'Typ dokladu:', Value: receipt.receiptType === 'UF' ? 'Úhrada faktúry' : 'Pokladničný doklad' });
  tags.push({ Name: 'CisloDokladu', Label: 'Číslo dokladu:', Value: receipt.receiptNumber });
  if (receipt.invoiceNumber) tags.push({ Name: 'CisloFaktury', Label: 'Číslo faktúry:', Value: receipt.invoiceNumber });
  if (receipt.paragonNumber) tags.push({ Name: 'Paragon', Label: 'Číslo paragónu:', Value: receipt.paragonNumber });
  tags.push({ Name: 'OKP', Label: 'OKP:', Value: okp });
  tags.push({ Name: 'PKP', Label: 'PKP:', Value: pkp });
  tags.push({ Name: 'Offline', Label: '', Value: 'OFF-LINE DOKLAD' });
  return tags;
}

/** The receipt's Fis once eKasa's receipt id is known: the UID as a field and a printed line, its QR code. */
export function withUid(fis: Obj, uid: string): Obj {
  const tags = lines(fis, 'Tag').filter((t) => !OFFLINE_TAGS.has(str(t, 'Name') ?? '') && str(t, 'Name') !== 'UID');
  return { ...fis, UID: uid, Code: onlineQr(uid), Tag: [...tags, { Name: 'UID', Label: 'UID:', Value: uid }] };
}
