/**
 * The EN 16931 semantic model of one invoice, as far as an ESR fills it: business terms (BT-…) and groups
 * (BG-…) by their names in the standard. Amounts are exact decimals; the syntax writers (ubl.ts) only format.
 */
import type { Dec } from '../../shared/money.js';
import type { Syntax } from './destination.js';

/** An electronic address (BT-34, BT-49) with its EAS scheme. */
export interface Endpoint {
  scheme: string;
  id: string;
}

export interface Address {
  street?: string;
  additionalStreet?: string;
  city?: string;
  zip?: string;
  country: string;
}

export interface Party {
  /** BT-27 / BT-44 */
  name: string;
  address: Address;
  /** BT-31 / BT-48, with the country prefix */
  vatId?: string;
  /** BT-32, the seller's tax registration identifier */
  taxRegistrationId?: string;
  /** BT-46 buyer identifier (the POS customer number) */
  identifier?: string;
  endpoint?: Endpoint;
  /** BT-30 seller legal registration identifier, where a country's rules ask for it */
  legalId?: Endpoint;
  /** BG-6 seller contact */
  contact?: { name?: string; telephone?: string; email?: string };
}

/** UNCL5305: standard, zero rated, exempt, reverse charge */
export type VatCategory = 'S' | 'Z' | 'E' | 'AE';

export interface Line {
  /** BT-126 */
  id: string;
  /** the line's index in ESR.PosA (Mod and Lin lines counted), for the field a refusal names */
  pos: number;
  /** BT-127 */
  note?: string;
  /** BT-129, BT-130 */
  quantity: Dec;
  unit: string;
  /** BT-131: quantity × price − allowance + charge */
  net: Dec;
  /** BG-26: BT-134, BT-135 */
  periodStart?: string;
  periodEnd?: string;
  /** BT-132 */
  orderLineReference?: string;
  /** BG-27 (positive) or BG-28 (negative, as a charge): the receipt's Mods on this line, net */
  allowance: Dec;
  /** BT-153, BT-155, BT-157 (GTIN) */
  name: string;
  sellerItemId?: string;
  gtin?: string;
  /** BT-151, BT-152 */
  category: VatCategory;
  rate: Dec;
  /** BT-146, never negative (BR-27) */
  price: Dec;
}

/** BG-20 (allowance) or BG-21 (charge) on document level: a Mod of the whole receipt (PN `*`), net, per VAT rate */
export interface DocumentAllowance {
  charge: boolean;
  /** BT-92 / BT-99, positive */
  amount: Dec;
  /** BT-97 / BT-104 */
  reason: string;
  /** BT-95, BT-96 / BT-102, BT-103 */
  category: VatCategory;
  rate: Dec;
}

/** BG-23 */
export interface VatBreakdown {
  category: VatCategory;
  rate: Dec;
  taxable: Dec;
  tax: Dec;
  /** BT-120, BT-121: why no VAT is charged (E, AE) */
  exemptionReason?: string;
  exemptionCode?: string;
}

export interface PaymentInstructions {
  /** BT-81 (UNTDID 4461) */
  code: string;
  /** BT-83 remittance information */
  remittance?: string;
  /** BT-84, BT-85, BT-86 */
  iban?: string;
  accountName?: string;
  bic?: string;
}

export interface Einvoice {
  syntax: Syntax;
  /** a CreditNote (BT-3 381) for a return, else an Invoice (380) */
  creditNote: boolean;
  /** BT-1: the FN, or TL/TT/TN */
  id: string;
  /** BT-2, BT-9 (YYYY-MM-DD) */
  issueDate: string;
  dueDate?: string;
  /** BT-5 */
  currency: string;
  /** BT-8 value added tax point date code (432: VAT on payment) */
  taxPointCode?: string;
  /** BT-10 */
  buyerReference?: string;
  /** BT-13 */
  orderReference?: string;
  /** BG-3 preceding invoice */
  preceding?: { id: string; date?: string };
  /** BT-22 */
  note?: string;
  seller: Party;
  buyer: Party;
  /** BG-13: BT-72 and the deliver-to address BG-15 */
  delivery?: { date?: string; address?: Address };
  /** absent where no instructions are needed (paid at the POS) */
  payment?: PaymentInstructions;
  /** BT-20 */
  paymentTerms?: string;
  lines: Line[];
  /** BG-20, BG-21 */
  allowances: DocumentAllowance[];
  vat: VatBreakdown[];
  totals: {
    /** BT-106 */ lineNet: Dec;
    /** BT-107 */ allowances: Dec;
    /** BT-108 */ charges: Dec;
    /** BT-109 */ taxExclusive: Dec;
    /** BT-110 */ tax: Dec;
    /** BT-112 */ taxInclusive: Dec;
    /** BT-113 */ prepaid: Dec;
    /** BT-115 */ payable: Dec;
  };
}
