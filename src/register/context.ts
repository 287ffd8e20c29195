/** Everything a request handler needs, built once at start by server.ts (or a test). */
import type { Clock } from '../shared/clock.js';
import type { GroupCommitter } from './journal/group-commit.js';
import type { JournalStore } from './journal/types.js';
import type { Profiles } from './profile/profile.js';
import type { Registers } from './registers.js';
import type { Signer } from './security/signer.js';
import type { TlsRuntime } from './security/tls-runtime.js';
import type { CloudSettings } from './security/tokens.js';
import type { ServiceControl } from './maintenance/service-control.js';
import type { Recorder } from './recorder/recorder.js';
import type { EventReporter } from './recorder/events.js';
import type { AuthorityDelivery } from './fiscal/delivery/deliverer.js';

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
  control?: ServiceControl;
  /** set (to the RN being restored) while a restore writes into the instance: nothing is sealed meanwhile (#BACKUP_BUSY) */
  restoring?: string;
  /** activation at the portal and the journal archive (the recorder); absent without a running service */
  recorder?: Recorder;
  /** events reported to the portal (TSE failure and activation, disk nearly full); absent without a running service */
  events?: EventReporter;
  /** reporting receipts to a tax authority in real time and later (Croatia, Slovenia); absent without a running service */
  authority?: AuthorityDelivery;
}
