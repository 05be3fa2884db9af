/*
 * What the dashboard reads of the control plane's answers: the types generated from
 * control.yaml (type-only imports, erased from the modules the browser loads), so a change to
 * the contract shows here at the next typecheck.
 */
export type {
  ControlActiveRule as ActiveRule,
  ControlClock as Clock,
  ControlClockMove as ClockMove,
  ControlCreatedWorkspace as CreatedWorkspace,
  ControlJournalPage as JournalPage,
  ControlJournalEntry as JournalEntry,
  ControlPendingJobList as PendingJobList,
  ControlRanJob as RanJob,
  ControlRuleList as RuleList,
  ControlScenarioList as ScenarioList,
  ControlWorkspaceList as WorkspaceList,
  ControlWorkspaceListing as WorkspaceListing,
} from '../../generated/named-types.js';

/** What `request.recorded` carries besides the entry, for a request answered while the stream was open. */
export type { LiveDetail, MaskedHeaderPrefix } from '../../journal/live-detail-shape.js';
