import { describe, expect, it } from 'vitest';
import { ContractChecker } from '../../src/http/contract.js';
import { OperationIndex } from '../../src/http/operations.js';
import { loadSpec } from '../../src/http/spec.js';
import { OpenValueRewriter } from '../../src/scenarios/open-values.js';

const document = loadSpec('openapi.yaml').document;
const index = new OperationIndex(document);
const checker = new ContractChecker(document, 'openapi');
const rewriter = new OpenValueRewriter(document);
const values = { platform: 'mastodon', accountStatus: 'suspended', automationKind: 'auto_like' };

function operation(id: string) {
  const found = index.byOperationId(id);
  if (!found) throw new Error(id);
  return found;
}

const automation = {
  id: '6c1f0a52-3b4d-4e8f-9a7b-1c2d3e4f5a6b',
  accountId: '7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d',
  name: 'Price list on request',
  kind: 'comment_to_dm',
  keywords: ['price'],
  excludeKeywords: [],
  message: 'Thanks for asking!',
  enabled: true,
  createdAt: '2026-03-01T09:00:00.000Z',
  updatedAt: '2026-03-01T09:00:00.000Z',
};


/** Every /v1 response carries the budget headers; the contract requires them. */
const RATE_HEADERS = { 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': '599', 'x-ratelimit-reset': '1772442060' };

describe('answers carrying values clients have never seen', () => {
  it('replace an automation kind, and still validate against the contract', () => {
    expect(checker.check(operation('getAutomation'), 200, automation, RATE_HEADERS)).toBeUndefined();
    const rewritten = rewriter.rewrite(operation('getAutomation'), 200, automation, values) as typeof automation;
    expect(rewritten).toEqual({ ...automation, kind: 'auto_like' });
    expect(checker.check(operation('getAutomation'), 200, rewritten, RATE_HEADERS)).toBeUndefined();
    // The handler's own object is never changed: it may be a stored record.
    expect(automation.kind).toBe('comment_to_dm');
  });

  it('replace the kinds inside a list page', () => {
    const page = { data: [automation, { ...automation, kind: 'story_reply' }], nextCursor: null, hasMore: false };
    const rewritten = rewriter.rewrite(operation('listAutomations'), 200, page, values) as typeof page;
    expect(rewritten.data.map((item) => item.kind)).toEqual(['auto_like', 'auto_like']);
    expect(checker.check(operation('listAutomations'), 200, rewritten, RATE_HEADERS)).toBeUndefined();
  });

  it('replace only what was asked for', () => {
    const rewritten = rewriter.rewrite(operation('getAutomation'), 200, automation, { platform: 'mastodon' });
    expect(rewritten).toEqual(automation);
  });

  it('leave a closed enumeration that shares the field name alone', () => {
    const creatorInfo = {
      connectionId: '7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d',
      platform: 'tiktok',
      creatorInfo: {
        creatorAvatarUrl: null,
        creatorUsername: 'shop',
        creatorNickname: null,
        privacyLevelOptions: ['PUBLIC_TO_EVERYONE'],
        commentDisabled: false,
        duetDisabled: false,
        stitchDisabled: false,
        maxVideoPostDurationSec: 600,
      },
      fetchedAt: '2026-03-01T09:00:00.000Z',
    };
    expect(checker.check(operation('getCreatorInfo'), 200, creatorInfo, RATE_HEADERS)).toBeUndefined();
    expect(rewriter.rewrite(operation('getCreatorInfo'), 200, creatorInfo, values)).toEqual(creatorInfo);
  });

  it('leave an answer without a declared body as it is', () => {
    expect(rewriter.rewrite(operation('deleteProfile'), 200, undefined, values)).toBeUndefined();
    expect(rewriter.rewrite(operation('getAutomation'), 404, { error: { code: 'NOT_FOUND', message: 'x', details: { platform: 'twitter' } } }, values)).toEqual({
      error: { code: 'NOT_FOUND', message: 'x', details: { platform: 'twitter' } },
    });
  });
});
