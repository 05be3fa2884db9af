import type { Containment } from '../lib/containment.js';
import type { Faker } from '@faker-js/faker';
import { faker as englishFaker } from '@faker-js/faker/locale/en';
import { Scheduler, type JobHandlers } from '../clock/scheduler.js';
import { VirtualClock } from '../clock/virtual-clock.js';
import type { RealTime } from '../clock/real-time.js';
import { EventBus, type EventSubscriber } from '../events/bus.js';
import type { WorkspaceData } from '../store/database.js';
import type { HasWorkspaceData } from '../store/define-store.js';
import { CursorCodec } from '../lib/cursor-codec.js';
import { Journal, type JournalEntry } from '../journal/journal.js';
import type { LiveDetail } from '../journal/live-detail.js';
import { randomHex } from '../lib/credentials.js';
import type { HostFence } from '../lib/host-fence.js';
import { drawHex, flatAscii, hexToDigits, hexToUuid, hexToUuidDigits, seedFrom } from '../lib/ids.js';
import { PLANS, type Plan } from '../store/plans.js';

/** DESIGN.md: a delivery succeeds on a 2xx within 10 s. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * Faker's main entry loads all of its sixty-odd locales (over half a second of the
 * mock's start-up); its English entry loads only English and the base data. That
 * entry exports a ready instance, not the class and locales, so each workspace's
 * faker is built from the instance's class and merged definitions: the same
 * locale chain as `new Faker({ locale: [en, base] })`, value for value.
 */
const FakerClass = englishFaker.constructor as new (options: { locale: Faker['rawDefinitions'] }) => Faker;

export interface WorkspaceRuntime {
  realTime: RealTime;
  journalSize: number;
  jobHandlers: JobHandlers<Workspace>;
  /** Wired once per server: every event of every workspace reaches each of them. */
  eventSubscribers: ReadonlyArray<EventSubscriber<Workspace>>;
  /** Called after anything changes the workspace's data, so --data can persist it. */
  onChange: () => void;
  onJobError: (workspace: Workspace, jobKind: string, error: unknown) => void;
  /** How long a webhook receiver has to answer, in real milliseconds (default 10 000). */
  webhookTimeoutMs?: number;
  /** Where webhooks may not go: the server itself, and what --webhook-allow / --webhook-deny fence off. */
  webhookFence?: HostFence;
  /** A webhook receiver took a delivery of this event (contract coverage counts them). */
  onWebhookDelivered?: (workspace: Workspace, event: string) => void;
  /** Where a failure of the workspace's background work (its timer, its webhook attempts) stops (decision 0041). */
  containment: Containment;
  /** The workspace's journal recorded a request (by workspace id: a journal outlives a reset or a restore of its workspace). */
  onJournalRecord?: (workspaceId: string, entry: JournalEntry, detail?: LiveDetail) => void;
}

/**
 * One world: its data, keys, plan, virtual clock, scheduler, seeded faker and
 * journal. Two workspaces never see each other's ids. Services take the workspace
 * and ask it for time and ids; nothing reads the wall clock.
 */
export class Workspace implements HasWorkspaceData {
  readonly clock: VirtualClock;
  readonly scheduler: Scheduler<Workspace>;
  readonly journal: Journal;
  readonly events: EventBus<Workspace>;
  /** Signs list cursors with a secret of this workspace: a cursor from another one never decodes here. */
  readonly cursors: CursorCodec;
  /**
   * Seeded from the id position when the workspace was set up, so a reloaded workspace does
   * not replay old values; the faker itself (tens of KB) is made when first asked for.
   */
  private readonly fakerSeed: number;
  private ownFaker: Faker | undefined;

  constructor(
    readonly data: WorkspaceData,
    private readonly runtime: WorkspaceRuntime,
    /** A journal to carry on (a restored world keeps the record of what it was asked). */
    journal?: Journal,
  ) {
    this.clock = new VirtualClock(data.clock, runtime.realTime);
    this.fakerSeed = seedFrom(`${data.seed}:${data.id}:${data.idCounter}`);
    const onJournalRecord = runtime.onJournalRecord;
    const workspaceId = data.id;
    this.journal = journal ?? new Journal(runtime.journalSize, onJournalRecord && ((entry, detail) => onJournalRecord(workspaceId, entry, detail)));
    this.cursors = new CursorCodec(`${data.id}:${data.seed}`);
    this.events = new EventBus<Workspace>(this, runtime.eventSubscribers, {
      workspaceId: data.id,
      newEventId: () => hexToUuidDigits(this.draw(), 'evt_'),
      nowIso: () => this.nowIso(),
    });
    this.scheduler = new Scheduler<Workspace>({
      clock: this.clock,
      jobs: data.jobs,
      handlers: runtime.jobHandlers,
      context: () => this,
      newId: () => this.newId(),
      onJobError: (job, error) => runtime.onJobError(this, job.kind, error),
      fire: (run) => runtime.containment.settle('timer', run),
      // A running clock fires jobs from a timer, with no request to persist their work.
      onRan: () => this.changed(),
    });
    // The persisted job table is read off the scheduler whenever the data is written, copied or sized
    // (JSON.stringify, structuredClone and a spread all read it), rather than kept in step job by job.
    Object.defineProperty(data, 'jobs', { get: () => this.scheduler.jobTable(), enumerable: true, configurable: true });
  }

  get id(): string {
    return this.data.id;
  }

  /** This workspace's own seeded faker (never a module-level one). */
  get faker(): Faker {
    if (!this.ownFaker) {
      this.ownFaker = new FakerClass({ locale: englishFaker.rawDefinitions });
      this.ownFaker.seed(this.fakerSeed);
    }
    return this.ownFaker;
  }

  get plan(): Plan {
    return PLANS[this.data.plan];
  }

  now(): number {
    return this.clock.now();
  }

  nowIso(): string {
    return this.clock.nowIso();
  }

  /** A new UUID, deterministic for the workspace's seed. */
  newId(): string {
    return hexToUuid(this.draw());
  }

  /** A lowercase hex value from the seed, for network-native ids (a credential, or a media key, which is one, is `newCredential`). */
  newHex(length: number): string {
    // A slice of its own: one of 13 characters or more would keep the whole 64-digit draw alive.
    return flatAscii(this.draw().slice(0, length));
  }

  /** A decimal token, for network-native ids that are numbers. */
  newDigits(length: number): string {
    return hexToDigits(this.draw(), length);
  }

  /**
   * A lowercase hex credential (an upload token, a sign-in session's id) from crypto
   * randomness, so knowing the seed does not tell it. It still takes the place in the id
   * stream its seeded draw had, so every id drawn after it is the one the same requests
   * always got, and two servers with the same seed keep answering the same data.
   */
  newCredential(length: number): string {
    this.data.idCounter++;
    return randomHex(length);
  }

  /** The server's webhook timeout: real time, since it bounds a real HTTP request. */
  get webhookTimeoutMs(): number {
    return this.runtime.webhookTimeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  }

  /** The server's fence of webhook targets (none for a workspace built without a server). */
  get webhookFence(): HostFence | undefined {
    return this.runtime.webhookFence;
  }

  /** Where a failure of the workspace's background work stops: the server's containment (decision 0041). */
  get containment(): Containment {
    return this.runtime.containment;
  }

  /** Notes that the workspace's data changed (persists it with --data). */
  changed(): void {
    this.runtime.onChange();
  }

  /** Called by the webhook dispatcher for every delivery a receiver took. */
  webhookDelivered(event: string): void {
    this.runtime.onWebhookDelivered?.(this, event);
  }

  dispose(): void {
    this.scheduler.stop();
  }

  private draw(): string {
    return drawHex(this.data.seed, this.data.id, this.data.idCounter++);
  }
}
