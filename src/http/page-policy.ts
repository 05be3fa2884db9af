import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/*
 * What the server's HTML pages (the dashboard, /docs, the sign-in pages, the index) tell the
 * browser about themselves (docs/decisions/0029): never shown in a frame, so a page of another
 * site cannot lay one invisibly under a click (the dashboard's clock was frozen that way), and
 * scripts only from the server itself, an inline one only by its hash.
 */

/** A CSP source allowing exactly this inline `<script>` or `<style>` content (CSP 3 hash source). */
export function inlineHash(content: string): string {
  return `'sha256-${createHash('sha256').update(content, 'utf8').digest('base64')}'`;
}

/** A Content-Security-Policy of these directives, `frame-ancestors 'none'` always among them. */
export function contentSecurityPolicy(directives: Readonly<Record<string, readonly string[]>>): string {
  return Object.entries({ ...directives, 'frame-ancestors': ["'none'"] })
    .map(([name, sources]) => [name, ...sources].join(' '))
    .join('; ');
}

/**
 * A page that is an application of the server's own files (the dashboard, Swagger UI at /docs):
 * scripts from the server only, inline styles (a style runs no code) and `data:` images, and
 * requests to its own server only.
 */
export const SELF_SERVED_APP: Readonly<Record<string, readonly string[]>> = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
};

/**
 * Sets a page's headers: its policy, `X-Frame-Options: DENY` for browsers that predate
 * `frame-ancestors`, and `nosniff`, so nothing the server sends as text is run as a script.
 */
export function setPageHeaders(res: ServerResponse, policy: string): void {
  res.setHeader('Content-Security-Policy', policy);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
}
