/** Everything a request handler needs, built once at start by server.ts (or a test). */
import type { Clock } from '../shared/clock.js';
import type { GroupCommitter } from './journal/group-commit.js';
import type { JournalStore } from './journal/types.js';
import type { Profiles } from './profile/profile.js';
import type { Registers } from './registers.js';
import type { Signer } from './security/signer.js';

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
}
