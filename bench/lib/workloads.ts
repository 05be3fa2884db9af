import type { AutocannonRequest } from 'autocannon';

export const SERVER_IDS = ['mock', 'ceiling', 'express', 'prism'] as const;
export type ServerId = (typeof SERVER_IDS)[number];

/** Two accounts of one workspace that a post can go to together. */
export interface DestinationPair {
  apiKey: string;
  first: string;
  second: string;
}

/** What a server's requests are made of: the key(s) to send and the destinations to post to. */
export interface Target {
  /** Key of the workspace read requests go to. */
  apiKey: string;
  /** A post of that workspace, for `GET /v1/posts/{postId}` (any id does for a server that keeps no posts). */
  postId: string;
  /**
   * Pairs that `POST /v1/posts` rotates over, interleaved across workspaces so that
   * consecutive posts land on different workspaces and accounts (velocity stays out
   * of the way however fast the server is).
   */
  pairs: DestinationPair[];
}

/** One request of a workload, with the operation it calls (for "not implemented"). */
export interface WorkloadRequest {
  operationId: string;
  request: AutocannonRequest;
}

export interface Workload {
  id: string;
  title: string;
  /** 'load' runs with BENCH_CONNECTIONS; 1 measures latency alone. */
  connections: 'load' | 1;
  servers: readonly ServerId[];
  /** Whether it creates posts (the mock's clock driver runs meanwhile). */
  creates: boolean;
  /**
   * The least mock/Prism req/s the workload must reach: 5× on every shared workload
   * (issue 37; issue 21 asked 3× of four of them, issue 10 1.5× of the others).
   */
  overPrism: number;
  requests(target: Target): WorkloadRequest[];
}

function get(operationId: string, path: string, target: Target): WorkloadRequest {
  return { operationId, request: { method: 'GET', path, headers: { 'x-api-key': target.apiKey } } };
}

const connections = (target: Target) => get('listConnections', '/v1/connections', target);
const postsPage = (target: Target) => get('listPosts', '/v1/posts?limit=20', target);
const accountsPage = (target: Target) => get('listAccounts', '/v1/accounts?limit=20', target);
const postById = (target: Target) => get('getPost', `/v1/posts/${target.postId}`, target);

/** The body of the n-th benchmark post: short text every network accepts, two destinations. */
export function createPostBody(n: number, pair: DestinationPair): string {
  return JSON.stringify({ text: `Benchmark post ${n}: fresh beans, same roast.`, destinations: [{ connectionId: pair.first }, { connectionId: pair.second }] });
}

/** `POST /v1/posts` with two destinations, each request on the next pair (and so the next workspace). */
function createPost(target: Target, counter: { n: number }): WorkloadRequest {
  const pairs = target.pairs;
  if (pairs.length === 0) throw new Error('no destination pairs to post to');
  const first = pairs[0] as DestinationPair;
  return {
    operationId: 'createPost',
    request: {
      method: 'POST',
      path: '/v1/posts',
      headers: { 'content-type': 'application/json', 'x-api-key': first.apiKey },
      body: createPostBody(0, first),
      setupRequest: (request) => {
        const n = counter.n++;
        const pair = pairs[n % pairs.length] as DestinationPair;
        return { ...request, headers: { 'content-type': 'application/json', 'x-api-key': pair.apiKey }, body: createPostBody(n, pair) };
      },
    },
  };
}

const ALL: readonly ServerId[] = ['mock', 'express', 'prism'];

export const WORKLOADS: readonly Workload[] = [
  { id: 'connections', title: 'GET /v1/connections', connections: 'load', servers: ['mock', 'ceiling', 'express', 'prism'], creates: false, overPrism: 5, requests: (t) => [connections(t)] },
  { id: 'accounts-list', title: 'GET /v1/accounts?limit=20', connections: 'load', servers: ALL, creates: false, overPrism: 5, requests: (t) => [accountsPage(t)] },
  { id: 'posts-list', title: 'GET /v1/posts?limit=20', connections: 'load', servers: ALL, creates: false, overPrism: 5, requests: (t) => [postsPage(t)] },
  { id: 'post-by-id', title: 'GET /v1/posts/{postId}', connections: 'load', servers: ALL, creates: false, overPrism: 5, requests: (t) => [postById(t)] },
  {
    id: 'posts-create',
    title: 'POST /v1/posts (2 destinations)',
    connections: 'load',
    // The ceiling too: Node's own part of a created post, which the budget under the Prism target is measured against.
    servers: ['mock', 'ceiling', 'express', 'prism'],
    creates: true,
    overPrism: 5,
    requests: (t) => [createPost(t, { n: 0 })],
  },
  {
    id: 'mixed',
    title: 'mixed: 70% reads, 20% POST, 10% other',
    connections: 'load',
    servers: ALL,
    creates: true,
    overPrism: 5,
    requests: (t) => {
      const counter = { n: 0 };
      // 4 connections + 3 post pages (reads), 2 posts created, 1 accounts page (other).
      return [connections(t), postsPage(t), createPost(t, counter), connections(t), postsPage(t), accountsPage(t), connections(t), createPost(t, counter), postsPage(t), connections(t)];
    },
  },
  { id: 'connections-c1', title: 'GET /v1/connections, 1 connection (latency)', connections: 1, servers: ['mock'], creates: false, overPrism: 1.5, requests: (t) => [connections(t)] },
];

/** The concrete requests a workload's first cycle sends, for probing each operation once. */
export function probeRequests(workload: Workload, target: Target): WorkloadRequest[] {
  return workload.requests(target).map(({ operationId, request }) => ({
    operationId,
    request: request.setupRequest ? request.setupRequest({ ...request }, {}) : request,
  }));
}
