import { createHmac, timingSafeEqual } from 'node:crypto';

/** The scheme prefix of `X-Gateway-Signature`. */
const SCHEME = 'sha256=';

/** `sha256=<hex HMAC-SHA256(secret, raw body)>`: the `X-Gateway-Signature` of a body. */
export function signWebhookBody(rawBody: string | Uint8Array, secret: string): string {
  return SCHEME + createHmac('sha256', secret).update(rawBody).digest('hex');
}

/**
 * Tells whether a webhook request is genuine: `signatureHeader` must be the
 * `X-Gateway-Signature` the mock (or the real service) computed over exactly these
 * bytes with your secret. Pass the raw body as received, before any JSON parsing:
 * re-serialised JSON rarely has the same bytes. The comparison takes the same time
 * whatever the signature, so it leaks nothing to a forger.
 *
 * @example
 * ```ts
 * import { verifyWebhookSignature } from 'social-gateway-mock';
 *
 * app.post('/hooks/gateway', express.raw({ type: 'application/json' }), (req, res) => {
 *   if (!verifyWebhookSignature(req.body, req.get('X-Gateway-Signature'), process.env.GATEWAY_WEBHOOK_SECRET!)) {
 *     return res.sendStatus(401);
 *   }
 *   const event = JSON.parse(req.body.toString('utf8'));
 *   // Retries repeat the same event id: drop ids already handled.
 *   res.sendStatus(204);
 * });
 * ```
 */
export function verifyWebhookSignature(rawBody: string | Uint8Array, signatureHeader: string | null | undefined, secret: string): boolean {
  if (typeof signatureHeader !== 'string' || !signatureHeader.startsWith(SCHEME)) return false;
  const given = Buffer.from(signatureHeader.slice(SCHEME.length).trim().toLowerCase(), 'utf8');
  const expected = Buffer.from(signWebhookBody(rawBody, secret).slice(SCHEME.length), 'utf8');
  // timingSafeEqual throws on different lengths; a length mismatch is simply not a match.
  return given.length === expected.length && timingSafeEqual(given, expected);
}
