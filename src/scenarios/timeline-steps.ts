import { checkInboundComment, receiveComment, type InboundCommentInput } from '../api/comments/service.js';
import { checkInboundMessage, checkInboundStoryReply, receiveMessage, receiveStoryReply, type InboundMessageInput, type InboundStoryReplyInput } from '../api/inbox/service.js';
import { checkInboundReview, receiveReview, type InboundReviewInput } from '../api/reviews/service.js';
import { checkNetworkPost, postOnNetwork } from '../api/sync/service.js';
import { allWebhooks, deliveryFaults, setDeliveryFaults, type DeliveryFaultsInput } from '../api/webhooks/service.js';
import { parseIsoDuration } from '../clock/duration.js';
import type { JobData, JobHandler } from '../clock/scheduler.js';
import { EMITTED_DATA_MAX_BYTES } from '../events/bus.js';
import type { EventName } from '../events/catalog.js';
import { accountsStore } from '../api/accounts/store.js';
import { ApiError } from '../lib/errors.js';
import { addOutage, clearOutages } from '../platforms/outages.js';
import type { Workspace } from '../workspaces/workspace.js';
import { nextScenarioState } from './rule-state.js';
import type { FieldPath } from './scenario.js';
import { scenarioStore } from './store.js';
import { endAuthorization, resolveAccount } from './world.js';

/**
 * The kinds of timeline step, as a registry other capabilities plug into. A step is a
 * job on the workspace's scheduler (kind `scenario.<step>`), so `advance` runs it in
 * time order with everything else that falls due.
 *
 * To add a kind: describe its fields in scenarios/scenario.schema.json (a branch of
 * `step`; a test checks the schema and this registry list the same kinds), give it a
 * TimelineStepKind here, and document it in docs/scenarios.md. A step plays through
 * the capability's own service: `prepare` runs the service's checks when the scenario
 * loads, so a step that could never run fails the load at its line.
 */

export interface StepContext {
  workspace: Workspace;
  /** Virtual time of the load. */
  loadedAtMs: number;
  /** Fails the load, pointing at one of the step's fields (a name, or a path below the step). */
  fail(field: string | FieldPath, reason: string): never;
}

export interface TimelineStepKind {
  /** Checks the step against the workspace when the scenario loads and returns what its job carries (JSON). */
  prepare(params: Record<string, unknown>, context: StepContext): JobData;
  /** Does the step, at its virtual time. */
  run(workspace: Workspace, data: JobData): void | Promise<void>;
  /** A short description for the job's label (`advance` shows it). */
  label(data: JobData): string;
}

/**
 * Runs a capability's own checks at load. A refusal (the ApiError its endpoint would
 * answer) fails the load at the step field that stands for the error's `param`.
 */
function checkedAtLoad<T>(fail: StepContext['fail'], fieldOf: (param: string) => FieldPath, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return fail(error.extra.param === undefined ? [] : fieldOf(error.extra.param), `${error.message} (${error.code})`);
  }
}

/** An inbound step's params are its control endpoint's body, with `account` (an account reference) for `accountId`. */
const inboundField = (param: string): FieldPath => [param === 'accountId' ? 'account' : param];

interface InboundKind<Input extends { accountId?: string }> {
  /** The service's checks; answers the network the step lands on, for its label. */
  check(workspace: Workspace, body: Input): string;
  receive(workspace: Workspace, body: Input): unknown;
  label(body: Input, platform: string): string;
}

/** A step that plays one of the control plane's inbound endpoints, through the same service. */
function inboundStep<Input extends { accountId?: string }>(kind: InboundKind<Input>): TimelineStepKind {
  return {
    prepare(params, { workspace, fail }) {
      const { account, ...body } = params;
      if (account !== undefined) body['accountId'] = resolveAccount(workspace, String(account), (reason) => fail('account', reason)).id;
      const platform = checkedAtLoad(fail, inboundField, () => kind.check(workspace, body as Input));
      return { body, platform };
    },
    run(workspace, data) {
      // The service checks again: the world may have changed since the load (a failure shows in `advance`).
      kind.receive(workspace, data['body'] as Input);
      workspace.changed();
    },
    label: (data) => kind.label(data['body'] as Input, String(data['platform'])),
  };
}

/** Who an inbound step's person is, for labels. */
function someone(body: { username?: string | null }): string {
  return typeof body.username === 'string' ? body.username : 'someone';
}

/** What a set of delivery faults does, for labels. */
function describeFaults(faults: DeliveryFaultsInput): string {
  const parts: string[] = [];
  if (faults.failStatus !== undefined) parts.push(`fails ${faults.failCount === undefined ? 'every attempt' : `${faults.failCount} attempt${faults.failCount === 1 ? '' : 's'}`} with ${faults.failStatus}`);
  if (faults.duplicate) parts.push('sends each attempt twice');
  if (faults.outOfOrder) parts.push('sends out of order');
  if (faults.delayMs) parts.push(`delays each event ${faults.delayMs} ms`);
  return parts.length === 0 ? 'delivers normally again' : parts.join(', ');
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

export const timelineSteps = new Map<string, TimelineStepKind>([
  [
    'emit',
    {
      prepare(params, { fail }) {
        const data = (params['data'] as Record<string, unknown> | undefined) ?? {};
        const size = JSON.stringify(data).length;
        if (size > EMITTED_DATA_MAX_BYTES) fail('data', `the event's data takes ${size} bytes; an emitted event carries at most ${EMITTED_DATA_MAX_BYTES}`);
        return { event: String(params['event']), data };
      },
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
  [
    'inbound.comment',
    inboundStep<InboundCommentInput>({
      check: (workspace, body) => checkInboundComment(workspace, body).destination.platform,
      receive: receiveComment,
      label: (body, platform) => `${someone(body)} comments on a post on ${platform}`,
    }),
  ],
  [
    'inbound.message',
    inboundStep<InboundMessageInput>({
      check: (workspace, body) => checkInboundMessage(workspace, body).account.platform,
      receive: receiveMessage,
      label: (body, platform) => `${someone(body)} writes to the ${platform} inbox`,
    }),
  ],
  [
    'inbound.story-reply',
    inboundStep<InboundStoryReplyInput>({
      check: (workspace, body) => checkInboundStoryReply(workspace, body).account.platform,
      receive: receiveStoryReply,
      label: (body, platform) => `${someone(body)} replies to a story on ${platform}`,
    }),
  ],
  [
    'inbound.review',
    inboundStep<InboundReviewInput>({
      check: (workspace, body) => checkInboundReview(workspace, body).platform,
      receive: receiveReview,
      label: (body, platform) => `a ${body.rating !== undefined ? `${body.rating}-star ` : body.recommendation !== undefined ? `${body.recommendation} ` : ''}review of the ${platform} page`,
    }),
  ],
  [
    'webhook.faults',
    {
      prepare(params, { fail }) {
        const faults = params['faults'] as DeliveryFaultsInput;
        // Webhooks are created after the scenario loads (loading starts the workspace afresh), so only the faults can be checked now.
        checkedAtLoad(fail, (param) => ['faults', param], () => deliveryFaults(faults));
        return { webhook: String(params['webhook']), faults };
      },
      run(workspace, data) {
        const ref = String(data['webhook']);
        const webhooks = allWebhooks(workspace)
          .filter((webhook) => ref === '*' || webhook.id === ref || webhook.name === ref)
          .sort((a, b) => a.seq - b.seq);
        if (webhooks.length === 0) {
          throw new Error(`${ref === '*' ? 'the workspace has no webhook' : `no webhook has the id or name "${ref}"`} when the step runs: create it after loading the scenario, before the step's time`);
        }
        for (const webhook of webhooks) setDeliveryFaults(workspace, webhook.id, data['faults'] as DeliveryFaultsInput);
        workspace.changed();
      },
      label: (data) => `${data['webhook'] === '*' ? 'every webhook' : `webhook "${String(data['webhook'])}"`} ${describeFaults(data['faults'] as DeliveryFaultsInput)}`,
    },
  ],
  [
    'network.post',
    {
      prepare(params, { workspace, fail }) {
        const account = resolveAccount(workspace, String(params['account']), (reason) => fail('account', reason));
        const input = { ...(typeof params['text'] === 'string' && { text: params['text'] }), count: typeof params['count'] === 'number' ? params['count'] : 1 };
        checkedAtLoad(fail, (param) => [param === 'text' ? 'text' : 'account'], () => checkNetworkPost(workspace, account.id, input));
        return { accountId: account.id, platform: account.platform, input };
      },
      run(workspace, data) {
        postOnNetwork(workspace, String(data['accountId']), data['input'] as { text?: string; count: number });
      },
      label: (data) => {
        const count = (data['input'] as { count: number }).count;
        return `${String(data['platform'])} account posts on the network itself${count === 1 ? '' : ` (${count} posts)`}`;
      },
    },
  ],
]);

/** The kind a step names; the schema lets only registered kinds through. */
export function stepKind(kind: string): TimelineStepKind | undefined {
  return timelineSteps.get(kind);
}

export const STEP_JOB_PREFIX = 'scenario.';

/** One job handler per playable step kind: `scenario.emit`, `scenario.account.expire`, … */
export function timelineJobHandlers(): Map<string, JobHandler<Workspace>> {
  const handlers = new Map<string, JobHandler<Workspace>>();
  for (const [name, entry] of timelineSteps) {
    handlers.set(`${STEP_JOB_PREFIX}${name}`, (workspace, job) => entry.run(workspace, job.data));
  }
  return handlers;
}
