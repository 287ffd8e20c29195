/**
 * Types of the known ESR fields, per element. Unknown fields are kept as they are
 * (company-specific attributes of 5+ letters, or fields of later spec versions).
 */
export type FieldType =
  | 'text'
  | 'money'
  | 'decimal'
  | 'int'
  | 'bool'
  | 'datetime'
  | 'date'
  | { enum: readonly string[] };

const VAT_REGIME = { enum: ['GENERAL', 'SIMPLE', 'REDE'] } as const;

export const ESR_FIELDS: Readonly<Record<string, FieldType>> = {
  D: 'datetime', D0: 'datetime', DueDate: 'datetime',
  T: 'money', TaxN: 'bool', Void: 'bool', Test: 'bool', TID: 'int',
  TaxId: 'text', TL: 'text', TT: 'text', TN: 'text', Opr: 'text', OprN: 'text', OprTIN: 'text',
  DT: 'text', DN: 'text', DD: 'text', DDto: 'text', NF: 'text', NFS: 'text', ResumeFN: 'text', DO: 'text',
  RD: 'text', RTL: 'text', RTT: 'text', RTN: 'text', RFiscal: 'text', RFN: 'text', TP: 'text', Rsn: 'text',
  OprSSN: 'text', Dev: 'text', PaymentTerms: 'text', OrderReference: 'text', VatRegime: VAT_REGIME,
};

export const LINE_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldType>>>> = {
  Pos: {
    Amt: 'money', Qty: 'decimal', Pri: 'money', Void: 'bool', InH: 'bool', DE_AGENTUR_ID: 'int',
    SvcStartD: 'date', SvcEndD: 'date', Resume: { enum: ['1'] }, VatRegime: VAT_REGIME,
    SK_SellerIdType: { enum: ['NONE', 'IC_DPH', 'DIC'] },
    PTY: 'text', PN: 'text', IN: 'text', ID: 'text', SKU: 'text', Dsc: 'text', TaxG: 'text', QtyU: 'text',
    PosG: 'text', Note: 'text', VouN: 'text', Dev: 'text', Cat: 'text', CatN: 'text',
    PT_TaxExemptionCode: 'text', PT_TaxExemptionReason: 'text',
  },
  Mod: { Amt: 'money', PN: 'text', Dsc: 'text', Prc: 'text', Cat: 'text' },
  Lin: { PN: 'int', Dsc: 'text', LAmt: 'text' },
  Pay: {
    Amt: 'money', FAmt: 'money', ConvR: 'decimal', InputMethod: { enum: ['manual', 'auto'] },
    Dsc: 'text', PayG: 'text', UID: 'text', CC: 'text',
  },
  Tax: { Prc: 'decimal', Net: 'money', TAmt: 'money', Amt: 'money', Base: 'money', TaxG: 'text', TTY: 'text' },
};

/** Mandatory fields of each line type (PN, Qty, Pri and PayG have defaults). */
export const LINE_REQUIRED: Readonly<Record<string, readonly string[]>> = {
  Pos: ['Dsc', 'TaxG', 'Amt'],
  Mod: ['Amt'],
  Lin: [],
  Pay: ['Dsc', 'Amt'],
  Tax: ['TaxG', 'Prc', 'Amt'],
};

export const LINE_TYPES_OF: Readonly<Record<string, readonly string[]>> = {
  PosA: ['Pos', 'Mod', 'Lin'],
  PayA: ['Pay'],
  TaxA: ['Tax'],
};

export function describe(t: FieldType): string {
  if (typeof t === 'object') return `one of ${t.enum.join(', ')}`;
  return {
    text: 'text',
    money: 'a decimal amount',
    decimal: 'a decimal number',
    int: 'an integer',
    bool: '0 or 1',
    datetime: 'a date-time YYYY-MM-DDThh:mm:ss',
    date: 'a date YYYY-MM-DD',
  }[t];
}
