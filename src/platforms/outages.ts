import { ApiError } from '../lib/errors.js';
import { defineStore } from '../store/define-store.js';
import type { Workspace } from '../workspaces/workspace.js';
import { platformFacts } from './catalog.js';

/** A window of virtual time during which a network answers every call with an error. */
export interface OutageRecord {
  platform: string;
  fromMs: number;
  /** End of the window (exclusive); null for "until cleared". */
  untilMs: number | null;
  message: string;
}

/** Network outages of one workspace, set by scenarios and the control plane. */
export const outagesStore = defineStore('outages', () => ({
  outages: [] as OutageRecord[],
}));

export function addOutage(workspace: Workspace, outage: OutageRecord): void {
  outagesStore.get(workspace).outages.push(outage);
  workspace.changed();
}

export function clearOutages(workspace: Workspace, platform?: string): void {
  const store = outagesStore.get(workspace);
  store.outages = platform === undefined ? [] : store.outages.filter((outage) => outage.platform !== platform);
  workspace.changed();
}

/** The outage in force for a network at the workspace's current virtual time, if any. */
export function activeOutage(workspace: Workspace, platform: string): OutageRecord | undefined {
  const now = workspace.now();
  return outagesStore.get(workspace).outages.find((o) => o.platform === platform && o.fromMs <= now && (o.untilMs === null || now < o.untilMs));
}

/** Throws the upstream failure a read of a down network answers: 502 PLATFORM_ERROR naming the network. */
export function assertNetworkUp(workspace: Workspace, platform: string): void {
  const outage = activeOutage(workspace, platform);
  if (!outage) return;
  const label = platformFacts(platform)?.label ?? platform;
  throw new ApiError(502, 'PLATFORM_ERROR', `${label} did not answer: ${outage.message}`, { details: { platform } });
}
