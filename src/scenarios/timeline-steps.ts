import { parseIsoDuration } from '../clock/duration.js';
import type { JobData, JobHandler } from '../clock/scheduler.js';
import type { EventName } from '../events/catalog.js';
import { accountsStore } from '../api/accounts/store.js';
import { addOutage, clearOutages } from '../platforms/outages.js';
import type { Workspace } from '../workspaces/workspace.js';
import { nextScenarioState } from './rule-state.js';
import { scenarioStore } from './store.js';
import { endAuthorization, resolveAccount } from './world.js';

/**
 * The kinds of timeline step, as a registry other capabilities plug into. A step is a
 * job on the workspace's scheduler (kind `scenario.<step>`), so `advance` runs it in
 * time order with everything else that falls due.
 *
 * To add a kind: describe its fields in scenarios/scenario.schema.json (a branch of
 * `step`), give it a TimelineStepKind here (replacing its `unavailable` entry), and
 * document it in docs/scenarios.md. A kind listed as unavailable is refused when a
 * scenario is loaded, at the step's line: never a step that silently does nothing.
 */

export interface StepContext {
  workspace: Workspace;
  /** Virtual time of the load. */
  loadedAtMs: number;
  /** Fails the load, pointing at one of the step's fields. */
  fail(field: string, reason: string): never;
}

export interface TimelineStepKind {
  /** Checks the step against the workspace when the scenario loads and returns what its job carries (JSON). */
  prepare(params: Record<string, unknown>, context: StepContext): JobData;
  /** Does the step, at its virtual time. */
  run(workspace: Workspace, data: JobData): void | Promise<void>;
  /** A short description for the job's label (`advance` shows it). */
  label(data: JobData): string;
}

/** A kind this build knows the shape of but cannot play yet, and what it waits for. */
export interface UnavailableStep {
  unavailable: string;
}

function accountStep(status: 'expired' | 'revoked'): TimelineStepKind {
  return {
    prepare(params, { workspace, fail }) {
      const account = resolveAccount(workspace, String(params['account']), (reason) => fail('account', reason));
      return { accountId: account.id, platform: account.platform };
    },
    run(workspace, data) {
      const account = accountsStore.get(workspace).accounts[String(data['accountId'])];
      // Disconnected since the load: nothing left to expire.
      if (!account) return;
      endAuthorization(workspace, account, status);
    },
    label: (data) => `${String(data['platform'])} account ${status === 'expired' ? 'expires' : 'is revoked'}`,
  };
}

export const timelineSteps = new Map<string, TimelineStepKind | UnavailableStep>([
  [
    'emit',
    {
      prepare: (params) => ({ event: String(params['event']), data: (params['data'] as Record<string, unknown> | undefined) ?? {} }),
      run(workspace, data) {
        workspace.events.emit(data['event'] as EventName, structuredClone(data['data'] as Record<string, unknown>));
      },
      label: (data) => `emit ${String(data['event'])}`,
    },
  ],
  ['account.expire', accountStep('expired')],
  ['account.revoke', accountStep('revoked')],
  [
    'network.outage',
    {
      prepare(params) {
        const duration = typeof params['for'] === 'string' ? params['for'] : null;
        return {
          platform: String(params['platform']),
          for: duration,
          forMs: duration === null ? null : (parseIsoDuration(duration) ?? null),
          message: typeof params['message'] === 'string' ? params['message'] : 'the network is not answering',
        };
      },
      run(workspace, data) {
        const durationMs = typeof data['forMs'] === 'number' ? data['forMs'] : null;
        addOutage(workspace, {
          platform: String(data['platform']),
          fromMs: workspace.now(),
          untilMs: durationMs === null ? null : workspace.now() + durationMs,
          message: String(data['message']),
        });
      },
      label: (data) => `${String(data['platform'])} goes down${data['for'] ? ` for ${String(data['for'])}` : ''}`,
    },
  ],
  [
    'network.restore',
    {
      prepare: (params) => ({ platform: (params['platform'] as string | undefined) ?? null }),
      run(workspace, data) {
        clearOutages(workspace, (data['platform'] as string | null) ?? undefined);
      },
      label: (data) => `${data['platform'] === null ? 'every network' : String(data['platform'])} answers again`,
    },
  ],
  [
    'state',
    {
      prepare: (params) => ({ to: String(params['to']) }),
      run(workspace, data) {
        const loaded = scenarioStore.get(workspace).loaded;
        if (!loaded) return;
        loaded.state = nextScenarioState(loaded.states, String(data['to']));
        workspace.changed();
      },
      label: (data) => `scenario state → ${String(data['to'])}`,
    },
  ],
  ['inbound.comment', { unavailable: 'it needs the inbound comment service of the engagement capability (POST /__control/inbound/comments)' }],
  ['inbound.message', { unavailable: 'it needs the inbound message service of the engagement capability (POST /__control/inbound/messages)' }],
  ['inbound.story-reply', { unavailable: 'it needs the inbound story-reply service of the engagement capability (POST /__control/inbound/story-replies)' }],
  ['inbound.review', { unavailable: 'it needs the inbound review service of the engagement capability (POST /__control/inbound/reviews)' }],
  ['webhook.faults', { unavailable: "it needs the webhook dispatcher's delivery faults (setDeliveryFaults of the webhooks capability)" }],
  ['network.post', { unavailable: 'it needs the network-side posts that an account sync imports (the posts capability)' }],
]);

export type StepAvailability = { available: true; kind: TimelineStepKind } | { available: false; reason: string };

export function stepAvailability(kind: string): StepAvailability {
  const entry = timelineSteps.get(kind);
  if (!entry) return { available: false, reason: `no step kind "${kind}" is known` };
  if ('unavailable' in entry) return { available: false, reason: entry.unavailable };
  return { available: true, kind: entry };
}

export const STEP_JOB_PREFIX = 'scenario.';

/** One job handler per playable step kind: `scenario.emit`, `scenario.account.expire`, … */
export function timelineJobHandlers(): Map<string, JobHandler<Workspace>> {
  const handlers = new Map<string, JobHandler<Workspace>>();
  for (const [name, entry] of timelineSteps) {
    if ('unavailable' in entry) continue;
    handlers.set(`${STEP_JOB_PREFIX}${name}`, (workspace, job) => entry.run(workspace, job.data));
  }
  return handlers;
}
