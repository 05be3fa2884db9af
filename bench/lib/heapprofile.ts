/**
 * Reads a V8 sampling heap profile (`HeapProfiler.stopSampling`'s answer, as
 * bench/servers/allocation-sampling.mjs writes it) and says where the bytes were
 * allocated: each sample's bytes go to the nearest of the project's own functions on its
 * stack (Node's and V8's allocations on behalf of ours count as ours), and outside the
 * project to the allocating frame itself.
 */
import { areaOf, type CallFrame } from './cpuprofile.js';

export interface SamplingHeapNode {
  callFrame: CallFrame;
  /** Bytes sampled as allocated at this frame itself. */
  selfSize: number;
  children: SamplingHeapNode[];
}

export interface SamplingHeapProfile {
  head: SamplingHeapNode;
}

export interface AllocationSite {
  name: string;
  bytes: number;
  /** Share of every sampled byte. */
  pct: number;
}

function frameName(frame: CallFrame): string {
  const file = /\/(dist\/src|src)\/.*$/.exec(frame.url)?.[0].slice(1) ?? frame.url.split('/').pop() ?? '';
  return `${frame.functionName === '' ? '(anonymous)' : frame.functionName}${file === '' ? '' : ` (${file}:${frame.lineNumber + 1})`}`;
}

/** The `top` sites that allocated the most bytes, each under the nearest project function on its stack. */
export function allocationSites(profile: SamplingHeapProfile, top = 30): { totalBytes: number; sites: AllocationSite[] } {
  const bytes = new Map<string, number>();
  let totalBytes = 0;
  // An explicit stack: the tree is as deep as the deepest call.
  const stack: Array<{ node: SamplingHeapNode; owner: string | undefined }> = [{ node: profile.head, owner: undefined }];
  while (stack.length > 0) {
    const { node, owner } = stack.pop() as { node: SamplingHeapNode; owner: string | undefined };
    const ours = areaOf(node.callFrame) === 'project' && node.callFrame.url !== '';
    const nearest = ours ? frameName(node.callFrame) : owner;
    if (node.selfSize > 0) {
      const site = nearest ?? `${frameName(node.callFrame)} [outside the project]`;
      bytes.set(site, (bytes.get(site) ?? 0) + node.selfSize);
      totalBytes += node.selfSize;
    }
    for (const child of node.children) stack.push({ node: child, owner: nearest });
  }
  const sites = [...bytes.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, size]) => ({ name, bytes: size, pct: totalBytes > 0 ? (100 * size) / totalBytes : 0 }));
  return { totalBytes, sites };
}
