/**
 * SAF-T Cash Register: the code tables every country's file uses: the basics (line, transaction, payment
 * and event types with their official predefinedBasicID), the article group "Other", and a payment's
 * basicID from its PayG.
 */
/** One entry of `company/basics`: basicType, our basicID, the official predefinedBasicID, a description. */
export interface Basic {
  type: string;
  id: string;
  predefined?: string;
  desc: string;
}

function b(type: string, id: string, predefined: string | undefined, desc: string): Basic {
  return predefined ? { type, id, predefined, desc } : { type, id, desc };
}

/** The basics this export can use, by basicID (only those used are written to the file). */
export const BASICS: Readonly<Record<string, Basic>> = Object.fromEntries(
  [
    b('05', 'SAL', undefined, 'Sale line'),
    b('05', 'RET', undefined, 'Return line'),
    b('05', 'DSC', undefined, 'Discount line'),
    b('11', 'CASHSAL', '11001', 'Cash sale'),
    b('11', 'RETURNSAL', '11006', 'Return sale'),
    b('11', 'PAYOUT', '11010', 'Out payment'),
    b('11', 'PAYIN', '11011', 'In payment'),
    b('11', 'OTHERTRANS', '11999', 'Other transaction'),
    b('12', 'CASH', '12001', 'Cash'),
    b('12', 'DEBCARD', '12002', 'Debit card'),
    b('12', 'CREDCARD', '12003', 'Credit card'),
    b('12', 'GIFTTOKEN', '12005', 'Gift token'),
    b('12', 'LOYALTY', '12007', 'Loyalty, stamps'),
    b('12', 'CHECK', '12009', 'Check'),
    b('12', 'CREDITNOTE', '12010', 'Credit note'),
    b('12', 'MOBILE', '12011', 'Mobile phone apps'),
    b('12', 'OTHERPAY', '12999', 'Other payment'),
    b('13', 'POSSTART', '13001', 'POS application start'),
    b('13', 'POSEND', '13002', 'POS application shut down'),
    b('13', 'EMPIN', '13003', 'Employee log in'),
    b('13', 'EMPOUT', '13004', 'Employee log out'),
    b('13', 'DRAWOPEN', '13005', 'Open cash drawer'),
    b('13', 'DRAWCLOSE', '13006', 'Close cash drawer'),
    b('13', 'XREP', '13008', 'X report'),
    b('13', 'ZREP', '13009', 'Z report'),
    b('13', 'SALREC', '13012', 'Sales receipt'),
    b('13', 'RETREC', '13013', 'Return receipt'),
    b('13', 'COPYREC', '13014', 'Copy receipt'),
    b('13', 'TRAINREC', '13017', 'Training receipt'),
    b('13', 'OTHERREC', '13018', 'Other receipt'),
    b('13', 'PRICELOOKUP', '13022', 'Price look-up'),
    b('13', 'TRAINON', '13023', 'Training mode on'),
    b('13', 'TRAINOFF', '13024', 'Training mode off'),
    b('13', 'VOIDREC', '13028', 'Void receipt'),
    b('13', 'LINEDELETE', '13999', 'Delete line'),
    b('13', 'OTHEREVT', '13999', 'Other event'),
  ].map((x) => [x.id, x]),
);

/** The article group used when a position has no Cat (PredefinedBasicID-04 "Other"). */
export const OTHER_ART_GROUP = '04999';

/** A PayG constant (spec) as a payment basicID; 'change' and 'foreign' are cash (12001 covers all currencies). */
export function paymentTypeOf(payG: string | undefined): string {
  switch ((payG ?? '').toLowerCase()) {
    case 'cash':
    case 'change':
    case 'foreign':
    case 'refund':
      return 'CASH';
    case 'debitcard':
      return 'DEBCARD';
    case 'creditcard':
      return 'CREDCARD';
    case 'mobile':
      return 'MOBILE';
    case 'voucher':
    case 'title':
      return 'GIFTTOKEN';
    case 'loyalty':
      return 'LOYALTY';
    case 'check':
      return 'CHECK';
    case 'creditnote':
      return 'CREDITNOTE';
    default:
      return 'OTHERPAY';
  }
}
