/*
 * The shape of `request.recorded`'s `data.detail` (control.yaml, GET /__control/events), alone in
 * a file that imports nothing: the dashboard's browser program reads it too.
 */

/** A request's headers and bodies as the event stream's `request.recorded` carries them (`data.detail`). */
export interface LiveDetail {
  requestHeaders: Record<string, string>;
  /**
   * The body as the mock read it, as JSON text: the raw bytes are the body parser's (in the
   * contract router), so the contract's defaults are filled in by now. Null when there was none.
   */
  requestBody: string | null;
  requestBodyTruncated: boolean;
  responseHeaders: Record<string, string>;
  responseBody: string | null;
  responseBodyTruncated: boolean;
}

/**
 * How a secret header's value starts on the stream: only its last four characters follow
 * (`••••ault`), so a person can tell two keys apart but the page never holds one. A type, not a
 * value, so the browser program (which loads no module of the server) is checked to spell the
 * same marker.
 */
export type MaskedHeaderPrefix = '••••';
