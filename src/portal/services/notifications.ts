/**
 * Register notifications of a company (its registers, whichever of its locations they run at), in the language
 * asked (`languageCode`, ISO 639-1 with an optional region, default en-US): the text of that language, else
 * English, else any there is.
 */
import { Issues } from '../envelope.js';
import type { PortalContext } from '../context.js';
import type { Caller } from '../permissions.js';
import type { Notification } from '../store/types.js';
import { LANGUAGE_CODE_PATTERN } from '../validation/entity-rules.js';
import { getEntity } from './entities.js';

export interface NotificationView {
  registerNumber: string;
  eventCode: string;
  descriptionShort: string;
  descriptionLong: string;
  initialTimestamp: string;
  companyId: number;
  companyName: string;
  currentLevel: number;
  /** null while the condition lasts; a notice (TSE_ACTIVATED) is closed when raised */
  closedAt: string | null;
}

export function textFor(n: Notification, languageCode: string): { short: string; long: string } {
  const lang = languageCode.slice(0, 2).toLowerCase();
  return n.texts[languageCode] ?? n.texts[lang] ?? n.texts.en ?? Object.values(n.texts)[0] ?? { short: n.eventCode, long: n.eventCode };
}

export async function listNotifications(ctx: PortalContext, caller: Caller, companyId: number, languageCode = 'en-US'): Promise<NotificationView[]> {
  const issues = new Issues();
  if (!LANGUAGE_CODE_PATTERN.test(languageCode)) issues.add('languageCode', 'languageCode');
  issues.throwIfAny();
  const company = await getEntity(ctx, caller, companyId, 'company');
  const list = await ctx.store.listNotifications([company.id]);
  return list.map((n) => {
    const t = textFor(n, languageCode);
    return {
      registerNumber: n.registerNumber,
      eventCode: n.eventCode,
      descriptionShort: t.short,
      descriptionLong: t.long,
      initialTimestamp: n.initialTimestamp,
      companyId: n.companyId,
      companyName: company.name,
      currentLevel: n.level,
      closedAt: n.closedAt,
    };
  });
}
