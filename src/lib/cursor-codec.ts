import { createHmac } from 'node:crypto';
import { sameCredential } from './credentials.js';
import { ApiError } from './errors.js';
import { StringMemo } from './string-memo.js';

/** A sort key: the sorted field first, the id last so ties have a stable order. */
export type SortKey = ReadonlyArray<string | number | null>;

interface CursorBody {
  /** workspace */
  w: string;
  /** list name */
  l: string;
  /** hash of the list's parameters */
  p: string;
  /** sort key of the last item served */
  k: SortKey;
}

/**
 * Opaque cursors, bound to the workspace, the list and its parameters, and signed,
 * so a cursor from elsewhere, with changed parameters or garbled in transit is a
 * 400 INVALID_CURSOR, never a silently wrong page. Cursors hold the last item's sort
 * key (keyset paging), so items added meanwhile neither repeat nor vanish.
 */
export class CursorCodec {
  /**
   * The cursors issued, by what they encode: a suite reads the same pages again and again, and
   * each cursor costs two HMACs (the parameters' and the signature), a twelfth of a posts page's
   * CPU. The same input always gives the same cursor, so a remembered one is the one it would make.
   */
  private readonly issued = new StringMemo<string>();
  /** The parameters' hashes, by their normalized text (decode checks them on every next page). */
  private readonly hashes = new StringMemo<string>();

  constructor(private readonly secret: string) {}

  encode(workspaceId: string, list: string, params: Record<string, unknown>, key: SortKey): string {
    const paramsText = normalizedParams(params);
    const memoKey = `${workspaceId}\n${list}\n${JSON.stringify(key)}\n${paramsText}`;
    const known = this.issued.get(memoKey);
    if (known !== undefined) return known;
    const body: CursorBody = { w: workspaceId, l: list, p: this.hashOf(paramsText), k: key };
    const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
    return this.issued.set(memoKey, `${payload}.${this.sign(payload)}`);
  }

  decode(cursor: string, workspaceId: string, list: string, params: Record<string, unknown>): SortKey {
    const [payload, signature, extra] = cursor.split('.');
    if (!payload || !signature || extra !== undefined || !this.verify(payload, signature)) {
      throw invalidCursor('The cursor is not one this server issued (garbled or truncated).');
    }
    let body: CursorBody;
    try {
      body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as CursorBody;
    } catch {
      throw invalidCursor('The cursor is not one this server issued (garbled or truncated).');
    }
    if (body.w !== workspaceId) throw invalidCursor('The cursor belongs to another workspace.');
    if (body.l !== list) throw invalidCursor(`The cursor belongs to another list, not ${list}.`);
    if (body.p !== this.paramsHash(params)) {
      throw invalidCursor('The list parameters changed since this cursor was issued; send them unchanged, or omit cursor to start over.');
    }
    return body.k;
  }

  private paramsHash(params: Record<string, unknown>): string {
    return this.hashOf(normalizedParams(params));
  }

  private hashOf(paramsText: string): string {
    return this.hashes.get(paramsText) ?? this.hashes.set(paramsText, createHmac('sha256', this.secret).update(paramsText).digest('base64url').slice(0, 16));
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url').slice(0, 22);
  }

  private verify(payload: string, signature: string): boolean {
    return sameCredential(signature, this.sign(payload));
  }
}

/** The list's parameters but `cursor`, by name, as the text its hash is made of. */
function normalizedParams(params: Record<string, unknown>): string {
  const normalized = Object.keys(params)
    .filter((name) => name !== 'cursor' && params[name] !== undefined)
    .sort()
    .map((name) => [name, params[name]]);
  return JSON.stringify(normalized);
}

function invalidCursor(message: string): ApiError {
  return new ApiError(400, 'INVALID_CURSOR', message, { param: 'cursor' });
}
