import type { DomainEvent } from '../events/catalog.js';
import type { Workspace } from '../workspaces/workspace.js';

/** One automation an inbound call set off, read from the events it emitted. */
export interface AutomationRun {
  automationId: string;
  kind: string;
  outcome: 'triggered' | 'failed';
  messageId: string | null;
  error: { code: string; message: string } | null;
}

export interface EventReport {
  events: DomainEvent[];
  automations: AutomationRun[];
}

/**
 * Runs `act` and reports the events it emitted, and the automations among them.
 * Subscribers (the automation runner) run inside each emit, so everything an
 * inbound call sets off has happened by the time `act` returns; the bus hands over
 * each event as it is emitted, so the report is whole however many there are.
 */
export function withEventReport<T>(workspace: Workspace, act: () => T): { result: T } & EventReport {
  const { result, events } = workspace.events.capture(act);
  const automations = events
    .filter((event) => event.event === 'automation.triggered' || event.event === 'automation.failed')
    .map((event): AutomationRun => ({
      automationId: String(event.data.automationId),
      kind: String(event.data.kind),
      outcome: event.event === 'automation.triggered' ? 'triggered' : 'failed',
      messageId: typeof event.data.messageId === 'string' ? event.data.messageId : null,
      error: (event.data.error as AutomationRun['error'] | undefined) ?? null,
    }));
  return { result, events, automations };
}
