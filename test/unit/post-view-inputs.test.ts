import { beforeAll, describe, expect, it } from 'vitest';
import type { DestinationRecord, PostRecord } from '../../src/api/posts/records.js';
import { postView, postViewInputs } from '../../src/api/posts/views.js';
import type { Workspace } from '../../src/workspaces/workspace.js';
import { useMock } from '../helpers/mock.js';
import { expectMemoFollowsInputs, type Mutation } from '../helpers/view-inputs.js';

/*
 * A posts read answers the view it made last time while postViewInputs answers the same
 * array (ViewMemo.from): the inputs must hold everything the view shows. This changes
 * every field of a post and of its destinations, one at a time, and holds that whenever
 * the view moves the inputs move too, and that the memo then answers the new view.
 */

const HOUR = 3_600_000;
const mock = useMock({ fixtures: false });
let workspace: Workspace;

beforeAll(() => {
  workspace = mock.server.registry.defaultWorkspace;
});

function destination(id: string, platform: string, publishedAt: string | null): DestinationRecord {
  return {
    id,
    connectionId: `conn-${id}`,
    platform,
    status: publishedAt === null ? 'queued' : 'published',
    externalPostId: publishedAt === null ? null : `ext-${id}`,
    externalUrl: publishedAt === null ? null : `https://example.test/${id}`,
    errorCode: null,
    errorMessage: null,
    publishedAt,
    text: null,
    options: {},
    metricsSeed: 42,
  };
}

function samplePost(): PostRecord {
  const publishedAt = new Date(workspace.now() - 2 * HOUR).toISOString();
  return {
    id: 'post-1',
    text: 'hello',
    mediaUrls: ['https://cdn.example.test/a.png'],
    mediaKind: 'image',
    status: 'published',
    scheduledFor: null,
    timezone: null,
    scheduledAtMs: null,
    source: 'api',
    thread: null,
    destinations: [destination('d1', 'tiktok', publishedAt), destination('d2', 'twitter', null)],
    createdAt: new Date(workspace.now() - 3 * HOUR).toISOString(),
    updatedAt: new Date(workspace.now() - 2 * HOUR).toISOString(),
  };
}

/** Another value of the same kind as `value`, so the record stays well formed. */
function changed(value: unknown): unknown {
  if (typeof value === 'string') return `${value}x`;
  if (typeof value === 'number') return value + 7;
  if (value === null) return 'set';
  if (Array.isArray(value)) return [...value, 'https://cdn.example.test/b.png'];
  return { ...(value as object), extra: true };
}

/** Every way to change one leaf of a post: its own fields, its media, and each destination's fields. */
function mutations(): Array<Mutation<PostRecord>> {
  const post = samplePost();
  const out: Array<Mutation<PostRecord>> = [];
  for (const key of Object.keys(post) as Array<keyof PostRecord>) {
    if (key === 'destinations') continue;
    out.push({ name: key, apply: (p) => Object.assign(p, { [key]: changed(p[key]) }) });
  }
  out.push({ name: 'mediaUrls[0]', apply: (p) => p.mediaUrls.splice(0, 1, 'https://cdn.example.test/c.png') });
  out.push({ name: 'destinations (one more)', apply: (p) => p.destinations.push(destination('d3', 'bluesky', null)) });
  post.destinations.forEach((d, i) => {
    for (const key of Object.keys(d) as Array<keyof DestinationRecord>) {
      out.push({ name: `destinations[${i}].${key}`, apply: (p) => Object.assign(p.destinations[i] as DestinationRecord, { [key]: changed((p.destinations[i] as DestinationRecord)[key]) }) });
    }
  });
  return out;
}

describe('postViewInputs', () => {
  it('moves whenever the view moves, for every field of a post and of its destinations', () => {
    const cases = mutations();
    expect(cases.length).toBeGreaterThan(25);
    for (const { name, apply } of cases) {
      const post = samplePost();
      const before = { view: JSON.stringify(postView(workspace, post)), inputs: postViewInputs(workspace, post) };
      apply(post);
      const viewMoved = JSON.stringify(postView(workspace, post)) !== before.view;
      const inputsMoved = JSON.stringify(postViewInputs(workspace, post)) !== JSON.stringify(before.inputs);
      if (viewMoved) expect(inputsMoved, `${name} changes the view but not its inputs`).toBe(true);
    }
  });

  it('moves with the metrics as the clock moves on', () => {
    const post = samplePost();
    const at = postViewInputs(workspace, post);
    expect(postViewInputs(workspace, post)).toEqual(at);
    workspace.clock.moveTo(workspace.now() + HOUR);
    expect(postViewInputs(workspace, post)).not.toEqual(at);
    expect(JSON.stringify(postViewInputs(workspace, post))).toContain(JSON.stringify(Object.values(postView(workspace, post).destinations[0]?.metrics ?? {})).slice(1, -1));
  });

  it('lets the memo answer the view it made while nothing changed, and a new one as soon as something did', () => {
    expectMemoFollowsInputs(samplePost(), (post) => postViewInputs(workspace, post), (post) => postView(workspace, post), mutations());
  });
});
