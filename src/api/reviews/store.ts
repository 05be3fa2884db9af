import { defineStore } from '../../store/define-store.js';

/** A review of a page-based network page (the only network with reviews). */
export interface ReviewRecord {
  /** The network's review id. */
  id: string;
  /** The page's connected account. */
  accountId: string;
  /** Recommends or not; null on old star-rating reviews. */
  recommendation: 'positive' | 'negative' | null;
  /** Stars 1 to 5 on old reviews; null on recommendations. */
  rating: number | null;
  /** Null when the reviewer left no text. */
  text: string | null;
  /** Null when the network does not share the reviewer's name. */
  reviewerName: string | null;
  createdAt: string;
}

/** Page reviews of one workspace, by id; listed newest first. */
export const reviewsStore = defineStore('reviews', () => ({
  reviews: {} as Record<string, ReviewRecord>,
}));
