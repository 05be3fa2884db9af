/**
 * Reads a V8 `.cpuprofile` (what `node --cpu-prof` writes) and says where the time
 * went: self time per function and per package. Self time is summed from the
 * sample deltas, which is exact where `hitCount × interval` drifts.
 */

export interface CallFrame {
  functionName: string;
  url: string;
  /** Zero-based, as V8 writes it. */
  lineNumber: number;
  columnNumber?: number;
}

export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
  hitCount?: number;
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  /** Node id of each sample. */
  samples: number[];
  /** Microseconds since the previous sample, one per sample. */
  timeDeltas: number[];
}

export interface FunctionCost {
  /** `name (file:line)`, the file relative to node_modules or the project. */
  name: string;
  /** The package, `node` for Node's own modules, `project` for ours, or a V8 bucket such as `(garbage collector)`. */
  area: string;
  selfMs: number;
  /** Share of the busy time (everything but idle). */
  selfPct: number;
}

export interface AreaCost {
  area: string;
  selfMs: number;
  selfPct: number;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  busyMs: number;
  functions: FunctionCost[];
  areas: AreaCost[];
}

/** V8's pseudo-frames: they have no url and a parenthesised name. */
const V8_BUCKETS = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/** Which package (or bucket) a frame belongs to. */
export function areaOf(frame: CallFrame): string {
  if (V8_BUCKETS.has(frame.functionName)) return frame.functionName;
  const url = frame.url;
  if (url === '') return '(native)';
  if (url.startsWith('node:')) return 'node';
  // The innermost node_modules names the package that owns the code.
  const packages = [...url.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)];
  const owner = packages[packages.length - 1];
  return owner ? (owner[1] as string) : 'project';
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) return url.slice(modules + 'node_modules/'.length);
  const project = /\/(dist\/src|src|bench|test)\/.*$/.exec(url);
  if (project) return project[0].slice(1);
  return url.replace(/^file:\/\//, '');
}

function frameName(frame: CallFrame): string {
  const name = frame.functionName === '' ? '(anonymous)' : frame.functionName;
  if (frame.url === '') return name;
  return `${name} (${shortUrl(frame.url)}:${frame.lineNumber + 1})`;
}

/** Only the samples taken between these instants (µs, the profile's own monotonic clock). */
export interface SampleWindow {
  fromUs: number;
  toUs: number;
}

/** Calls `visit` with each sample's node id and duration, inside the window when one is given. */
function eachSample(profile: CpuProfile, window: SampleWindow | undefined, visit: (nodeId: number, us: number) => void): void {
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    visit(id, us);
  });
}

export function summariseProfile(profile: CpuProfile, top = 25, window?: SampleWindow): ProfileSummary {
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) byId.set(node.id, node);

  const selfUs = new Map<number, number>();
  eachSample(profile, window, (id, us) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + us);
  });

  const byFunction = new Map<string, { area: string; us: number }>();
  const byArea = new Map<string, number>();
  let idleUs = 0;
  let totalUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    totalUs += us;
    const area = areaOf(node.callFrame);
    if (area === '(idle)') {
      idleUs += us;
      continue;
    }
    const name = frameName(node.callFrame);
    const entry = byFunction.get(name) ?? { area, us: 0 };
    entry.us += us;
    byFunction.set(name, entry);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
  }

  const busyUs = totalUs - idleUs;
  const pct = (us: number) => (busyUs > 0 ? round((100 * us) / busyUs, 1) : 0);
  const functions = [...byFunction.entries()]
    .sort((a, b) => b[1].us - a[1].us || a[0].localeCompare(b[0]))
    .slice(0, top)
    .map(([name, { area, us }]) => ({ name, area, selfMs: round(us / 1000, 1), selfPct: pct(us) }));
  const areas = [...byArea.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([area, us]) => ({ area, selfMs: round(us / 1000, 1), selfPct: pct(us) }));
  return { totalMs: round(totalUs / 1000, 1), idleMs: round(idleUs / 1000, 1), busyMs: round(busyUs / 1000, 1), functions, areas };
}

/**
 * Total (inclusive) time of the functions `keep` selects: each sample counts once
 * for every distinct selected function on its stack, so recursion is not counted
 * twice. Answers "which of our functions is the time spent under".
 */
export function inclusiveTimes(profile: CpuProfile, keep: (frame: CallFrame) => boolean, top = 25, window?: SampleWindow): Array<{ name: string; totalMs: number; totalPct: number }> {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const totals = new Map<string, number>();
  let busyUs = 0;
  eachSample(profile, window, (leaf, us) => {
    if (byId.get(leaf)?.callFrame.functionName === '(idle)') return;
    busyUs += us;
    const seen = new Set<string>();
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)?.callFrame;
      if (!frame || !keep(frame)) continue;
      const name = frameName(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      totals.set(name, (totals.get(name) ?? 0) + us);
    }
  });
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, top)
    .map(([name, us]) => ({ name, totalMs: round(us / 1000, 1), totalPct: busyUs > 0 ? round((100 * us) / busyUs, 1) : 0 }));
}

/** Plain-text report of a summary, for the terminal and docs/performance.md. */
export function formatSummary(summary: ProfileSummary, areasShown = 12): string {
  const lines = [`busy ${summary.busyMs} ms of ${summary.totalMs} ms sampled (idle ${summary.idleMs} ms)`, '', 'self time by package:'];
  for (const area of summary.areas.slice(0, areasShown)) lines.push(`  ${area.selfPct.toFixed(1).padStart(5)}%  ${area.area}`);
  lines.push('', 'top functions by self time:');
  for (const fn of summary.functions) lines.push(`  ${fn.selfPct.toFixed(1).padStart(5)}%  ${fn.name}`);
  return lines.join('\n');
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
