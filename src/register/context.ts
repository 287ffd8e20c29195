/** Everything a request handler needs, built once at start by server.ts (or a test). */
import type { Clock } from '../shared/clock.js';
import type { GroupCommitter } from './journal/group-commit.js';
import type { JournalStore } from './journal/types.js';
import type { Profiles } from './profile/profile.js';
import type { Registers } from './registers.js';
import type { Signer } from './security/signer.js';
import type { TlsRuntime } from './security/tls-runtime.js';
import type { CloudSettings } from './security/tokens.js';
import type { Obj } from './codec/index.js';
import type { Register } from './registers.js';
import type { Sealed } from './record-answer.js';
import type { StopReason, Stopped } from './maintenance/service-control.js';
import type { Activation, RecorderStatus } from './recorder/recorder.js';
import type { ReportedCode } from './recorder/events.js';
import type { OnlineOutcome } from './fiscal/delivery/deliverer.js';
import type { EinvoiceOutcome } from './einvoice/delivery.js';

/** Restart and stop of the running service (maintenance/service-control.ts). */
export interface ServiceStopper {
  stop(reason: StopReason): Promise<Stopped>;
}

/** The connection to the portal as routes and pages use it (recorder/recorder.ts). */
export interface PortalConnection {
  /** the activation at the portal, when there is one */
  current(): Activation | undefined;
  status(): RecorderStatus;
  /** def's profile was saved: the portal's copy is sent again */
  profileSaved(): void;
  /** whether this process is the one that sends to the portal (one per shared journal) */
  sends(): Promise<boolean>;
}

/** Events reported to the portal's notifications (recorder/events.ts). */
export interface EventQueue {
  fiscalStateChanged(rn: string, events: ReadonlyArray<{ code: ReportedCode; detail: string }>): void;
}

/** Reporting receipts to a tax authority in real time and later (fiscal/delivery/deliverer.ts). */
export interface AuthorityReporting {
  /** sends a committed receipt within Fiscal_Timeout; undefined when its country reports nothing */
  online(reg: Register, sealed: Sealed): Promise<OnlineOutcome | undefined>;
  /** queues the register's refused receipts again (after its configuration changed); how many */
  retryRefused(reg: Register): Promise<number>;
  status(): { queued: number; registers: Obj };
}

/** Delivering e-invoices to their delivery system online and later (einvoice/delivery.ts). */
export interface EinvoiceDelivering {
  /** sends a committed invoice's e-invoice within eDoc_Timeout; undefined when the record asks for none */
  online(reg: Register, sealed: Sealed, xml: string): Promise<EinvoiceOutcome | undefined>;
  status(): { queued: number; registers: Obj };
}

export interface ServiceContext {
  dataDir: string;
  store: JournalStore;
  signer: Signer;
  clock: Clock;
  profiles: Profiles;
  registers: Registers;
  committer: GroupCommitter;
  startedAt: number;
  version: string;
  envSettings: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** further host names browsers may address the service by (EFR_HOSTS), besides HttpServer_Hosts of def */
  allowedHosts?: string;
  /** HTTPS and client certificates of the listener; absent when the app runs without one (tests with inject) */
  tls?: TlsRuntime;
  /** the profile changed: the listener moves when HttpServer_Port or HttpServer_IPv4 changed (after the answer was sent) */
  listenerSettingsChanged?: () => void;
  /** cloud mode (bearer tokens): token lifetimes; absent on a local instance */
  cloud?: CloudSettings;
  /** restart and stop of the running service (POST /service/restart, App_restartAt); absent when the app runs without a server (tests with inject) */
  control?: ServiceStopper;
  /** set (to the RN being restored) while a restore writes into the instance: nothing is sealed meanwhile (#BACKUP_BUSY) */
  restoring?: string;
  /** activation at the portal and the journal archive (the recorder); absent without a running service */
  recorder?: PortalConnection;
  /** events reported to the portal (TSE failure and activation, disk nearly full); absent without a running service */
  events?: EventQueue;
  /** reporting receipts to a tax authority in real time and later (Croatia, Slovenia); absent without a running service */
  authority?: AuthorityReporting;
  /** delivering e-invoices to their delivery system; absent without a running service */
  einvoice?: EinvoiceDelivering;
}
