import { isIP } from 'node:net';
import type { MessageAttachment } from './store.js';

/*
 * Pure rules of direct messages, kept apart from the service so they are easy to
 * test on their own (test/unit/message-rules.test.ts).
 */

/** The person's last message opens a window of this long in which the extras may be sent. */
export const MESSAGING_WINDOW_MS = 24 * 3_600_000;

/** Whether the 24-hour window after the person's last message is still open at `nowMs` (its last instant included). */
export function windowOpen(lastInboundAt: string | null, nowMs: number): boolean {
  if (lastInboundAt === null) return false;
  return nowMs - Date.parse(lastInboundAt) <= MESSAGING_WINDOW_MS;
}

const EXTENSIONS: Record<string, MessageAttachment['type']> = {
  jpg: 'image', jpeg: 'image', png: 'image', gif: 'image', webp: 'image', heic: 'image',
  mp4: 'video', mov: 'video', m4v: 'video', webm: 'video',
  mp3: 'audio', m4a: 'audio', aac: 'audio', wav: 'audio', ogg: 'audio', oga: 'audio',
  pdf: 'file',
};

/** Extensions accepted in an attachment URL, for error messages. */
export const ATTACHMENT_EXTENSIONS = Object.keys(EXTENSIONS);

/**
 * What an attachment URL holds, judged by its path's extension (the mock does not
 * fetch it): an image, video, audio file or PDF; undefined for anything else.
 */
export function attachmentTypeOf(url: string): MessageAttachment['type'] | undefined {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const match = /\.([a-z0-9]+)$/i.exec(pathname);
  return match ? EXTENSIONS[(match[1] as string).toLowerCase()] : undefined;
}

/**
 * Why a URL is not a public HTTPS address the network could fetch, or undefined
 * when it is: not https, credentials in it, or a host that only resolves inside a
 * private network (localhost, .local/.internal names, loopback, private and
 * link-local addresses).
 */
export function notPublicHttpsReason(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'it is not a URL';
  }
  if (parsed.protocol !== 'https:') return 'it is not https';
  if (parsed.username !== '' || parsed.password !== '') return 'it carries credentials';
  const host = parsed.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal') || host.endsWith('.lan') || host.endsWith('.home.arpa')) {
    return `${host} is not a public host`;
  }
  if (isIP(host) !== 0 && privateAddress(host)) return `${host} is not a public address`;
  if (isIP(host) === 0 && !host.includes('.')) return `${host} is not a public host name`;
  return undefined;
}

function privateAddress(host: string): boolean {
  if (isIP(host) === 4) {
    const [a = 0, b = 0] = host.split('.').map(Number);
    return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
  }
  const v6 = host.toLowerCase();
  if (v6 === '::1' || v6 === '::') return true;
  // IPv4-mapped addresses: the URL parser writes them in hex, so refuse them all rather than decode.
  if (v6.startsWith('::ffff:')) return true;
  return /^f[cd]/.test(v6) || /^fe[89ab]/.test(v6);
}
