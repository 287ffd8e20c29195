/** What the portal's services and routes share: the store, the clock, the token issuer, the data folder. */
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../shared/clock.js';
import type { TokenIssuer } from './auth/tokens.js';
import type { Notifier } from './notifications/notifier.js';
import type { PortalStore } from './store/types.js';

export interface PortalContext {
  store: PortalStore;
  clock: Clock;
  tokens: TokenIssuer;
  dataDir: string;
  log?: FastifyBaseLogger;
  /** notification settings and mail (absent: default periods, no mail) */
  notifier?: Notifier;
}
