/** `decodeURIComponent`, except that a malformed %-escape is kept as written rather than thrown: whoever reads it next judges it. */
export function decodeOrKeep(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
