/**
 * The links of a Markdown page as a reader meets them: inline links and images, reference
 * definitions and the HTML `href`/`src` of a page, outside code blocks and HTML comments (which a
 * reader never follows), and the anchors its headings make, spelled as GitHub and npm spell them.
 */

export interface MarkdownLink {
  /** The target as written: a URL, a relative path, `path#anchor` or `#anchor`. */
  target: string;
  /** 1-based line of the page, for the failure message. */
  line: number;
}

/** A fenced block (``` or ~~~) and an HTML comment, each replaced by as many blank lines. */
const FENCE = /^( {0,3})(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^\1\2[`~]*[ \t]*$|(?![\s\S]))/gm;
const COMMENT = /<!--[\s\S]*?-->/g;

function blankOut(text: string, pattern: RegExp): string {
  return text.replace(pattern, (match) => match.replace(/[^\n]/g, ''));
}

/** The page as prose: what a reader can click (no fenced blocks, no comments), lines kept in place. */
export function prose(markdown: string): string {
  return blankOut(blankOut(markdown, FENCE), COMMENT);
}

/** The page as read, code blocks included (the commands a reader runs), comments out, lines kept in place. */
export function readable(markdown: string): string {
  return blankOut(markdown, COMMENT);
}

function lineAt(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

const INLINE = /\]\(\s*<?([^()\s<>]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const REFERENCE = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm;
const HTML_ATTRIBUTE = /<(?:a|img|source)\b[^>]*?\s(?:href|src)\s*=\s*["']([^"']+)["']/gi;

export function markdownLinks(markdown: string): MarkdownLink[] {
  // Code spans go too: `a[0](b)` in code is no link, and a link's text may hold a code span.
  const text = prose(markdown).replace(/(`+)[^`\n][\s\S]*?\1/g, (span) => span.replace(/[^\n]/g, ' '));
  const links: MarkdownLink[] = [];
  for (const pattern of [INLINE, REFERENCE, HTML_ATTRIBUTE]) {
    for (const match of text.matchAll(pattern)) links.push({ target: match[1]!, line: lineAt(text, match.index) });
  }
  return links.sort((a, b) => a.line - b.line);
}

/**
 * GitHub's anchor for a heading: the text as shown (code and emphasis marks, link targets and
 * punctuation gone), lower case, spaces as hyphens; a repeated one gets `-1`, `-2`, ...
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of prose(markdown).matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/gm)) {
    const shown = match[1]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const slug = shown.toLowerCase().replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const match of markdown.matchAll(/<a\b[^>]*?\s(?:id|name)\s*=\s*["']([^"']+)["']/gi)) anchors.add(match[1]!);
  return anchors;
}
