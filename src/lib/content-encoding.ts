import { brotliDecompressSync, constants, gunzipSync, inflateSync } from 'node:zlib';

/** Decode what arrived, even when it was cut short (the dashboard keeps the first 16 KB of a body). */
const PARTIAL = { finishFlush: constants.Z_SYNC_FLUSH };

/**
 * A body as its Content-Encoding says it was compressed, decompressed: the same bytes when it
 * was not (no header, `identity`), undefined when it cannot be (an unknown coding, bytes that
 * are not of it). A gzip or deflate body cut short gives what its bytes hold. Compressed bytes keep stretches of the text as it was, so what is shown or redacted
 * must be the decoded text, never the compressed bytes read as UTF-8.
 */
export function decodeContentEncoding(body: Buffer, encoding: string | undefined): Buffer | undefined {
  const coding = (encoding ?? '').trim().toLowerCase();
  try {
    switch (coding) {
      case '':
      case 'identity':
        return body;
      case 'gzip':
      case 'x-gzip':
        return gunzipSync(body, PARTIAL);
      case 'deflate':
        return inflateSync(body, PARTIAL);
      case 'br':
        return brotliDecompressSync(body);
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}
