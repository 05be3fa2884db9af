import { ApiError } from '../lib/errors.js';
import { platformFacts } from './catalog.js';

/**
 * Length as the networks count it, near enough: Unicode code points, so an emoji is
 * one character and not the two UTF-16 units `String.length` would see, as the
 * contract's own maxLength counts them. (The microblogging network weighs URLs and
 * wide characters differently; the mock does not.)
 */
export function textLength(text: string): number {
  let count = 0;
  for (const _char of text) count++;
  return count;
}

/** The error a text longer than a network's limit answers: 400 TEXT_TOO_LONG with limit, length and platform. */
export function textTooLong(param: string, limit: number, length: number, platform: string): ApiError {
  const label = platformFacts(platform)?.label ?? platform;
  return new ApiError(400, 'TEXT_TOO_LONG', `${param} is ${length} characters; ${platform} (${label}) allows at most ${limit} here.`, {
    param,
    details: { limit, length, platform },
  });
}

/** Throws TEXT_TOO_LONG when `text` is over `limit` on `platform`. */
export function checkTextLimit(text: string, limit: number, platform: string, param = 'text'): void {
  const length = textLength(text);
  if (length > limit) throw textTooLong(param, limit, length, platform);
}
