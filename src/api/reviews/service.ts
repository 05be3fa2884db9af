import type { components } from '../../generated/openapi.js';
import { ApiError, validationError } from '../../lib/errors.js';
import { compareKeys, listPage, type Page } from '../../http/lists.js';
import { fakeText } from '../world/fakes.js';
import { platformFacts } from '../../platforms/catalog.js';
import type { Workspace } from '../../workspaces/workspace.js';
import { accountsStore, type AccountRecord } from '../accounts/store.js';
import { reviewsStore, type ReviewRecord } from './store.js';
import { getOwn } from '../../lib/records.js';

export type ReviewView = components['schemas']['Review'];

/** Page reviews exist on the page-based network alone. */
function hasReviews(platform: string): boolean {
  return platformFacts(platform)?.kind === 'page-based';
}

function reviewAccount(workspace: Workspace, accountId: string, param: string): AccountRecord {
  const account = getOwn(accountsStore.read(workspace).accounts, accountId);
  if (!account) throw new ApiError(404, 'NOT_FOUND', `Account '${accountId}' was not found in this workspace.`, { param });
  if (!hasReviews(account.platform)) {
    throw new ApiError(400, 'PLATFORM_NOT_SUPPORTED', `${account.platform} has no page reviews; they exist on facebook pages.`, { param, details: { platform: account.platform } });
  }
  return account;
}

export function reviewView(review: ReviewRecord): ReviewView {
  return {
    id: review.id,
    recommendation: review.recommendation,
    rating: review.rating,
    text: review.text,
    reviewerName: review.reviewerName,
    createdAt: review.createdAt,
  };
}

/** GET /v1/accounts/{id}/reviews: the page's reviews, newest first. */
export function listReviews(workspace: Workspace, accountId: string, query: { limit?: number; cursor?: string }): Page<ReviewView> {
  const account = reviewAccount(workspace, accountId, 'id');
  const reviews = Object.values(reviewsStore.get(workspace).reviews).filter((review) => review.accountId === account.id);
  reviews.sort((a, b) => compareKeys([a.createdAt, a.id], [b.createdAt, b.id], 'desc'));
  const page = listPage(workspace, { list: `reviews:${account.id}`, query, sorted: reviews, keyOf: (review) => [review.createdAt, review.id], direction: 'desc', limit: query.limit ?? 50 });
  return { ...page, data: page.data.map(reviewView) };
}

export interface InboundReviewInput {
  accountId?: string;
  recommendation?: 'positive' | 'negative';
  rating?: number;
  text?: string | null;
  reviewerName?: string | null;
}

/**
 * Every check of an inbound review, changing nothing (the page it goes to):
 * receiveReview runs it first, and a scenario's `inbound.review` step runs it when
 * the scenario loads.
 */
export function checkInboundReview(workspace: Workspace, input: InboundReviewInput): AccountRecord {
  let account: AccountRecord;
  if (input.accountId !== undefined) {
    account = reviewAccount(workspace, input.accountId, 'accountId');
  } else {
    const pages = Object.values(accountsStore.read(workspace).accounts).filter((a) => hasReviews(a.platform));
    pages.sort((a, b) => compareKeys([a.createdAt, a.id], [b.createdAt, b.id], 'asc'));
    const first = pages[0];
    if (!first) throw validationError('accountId', 'This workspace has no facebook page to review; connect one or name accountId.');
    account = first;
  }
  if (input.recommendation !== undefined && input.rating !== undefined) {
    throw validationError('rating', 'A review has either a recommendation or a star rating, not both.');
  }
  return account;
}

/**
 * Someone reviews a page: a recommendation (positive or negative) or, as on older
 * reviews, a star rating, never both. Left out: a recommendation drawn from the
 * seed, a matching text, a made-up reviewer. Emits `review.new`.
 */
export function receiveReview(workspace: Workspace, input: InboundReviewInput): ReviewRecord {
  const account = checkInboundReview(workspace, input);
  const recommendation = input.rating !== undefined ? null : (input.recommendation ?? workspace.faker.helpers.arrayElement(['positive', 'positive', 'positive', 'negative'] as const));
  const rating = input.rating ?? null;
  const positive = recommendation === 'positive' || (rating !== null && rating >= 4);
  const review: ReviewRecord = {
    id: workspace.newDigits(17),
    accountId: account.id,
    recommendation,
    rating,
    text: input.text !== undefined ? input.text : fakeText(workspace, positive ? 'reviewsPositive' : 'reviewsNegative'),
    reviewerName: input.reviewerName !== undefined ? input.reviewerName : workspace.faker.person.fullName(),
    createdAt: workspace.nowIso(),
  };
  reviewsStore.get(workspace).reviews[review.id] = review;
  workspace.events.emit('review.new', { accountId: account.id, platform: account.platform, review: reviewView(review) });
  return review;
}
