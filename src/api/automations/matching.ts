/**
 * Whether an automation answers a text: it contains one of `keywords` and none of
 * `excludeKeywords`, ignoring case (the reference's "contains any", so a keyword
 * matches inside a longer word too). Answers the first keyword found, in the
 * rule's order, or undefined.
 */
export function matchKeywords(text: string | null, keywords: readonly string[], excludeKeywords: readonly string[]): string | undefined {
  if (text === null) return undefined;
  const haystack = text.toLowerCase();
  if (excludeKeywords.some((keyword) => haystack.includes(keyword.toLowerCase()))) return undefined;
  return keywords.find((keyword) => haystack.includes(keyword.toLowerCase()));
}
