/**
 * `new Date(ms).toISOString()` for an instant asked for many times in a row (a request's, a run
 * of jobs that came due together): the last one formatted is kept, so asking again is O(1).
 */
export class LastIso {
  private ms = Number.NaN;
  private iso = '';

  of(ms: number): string {
    if (ms !== this.ms) {
      this.iso = new Date(ms).toISOString();
      this.ms = ms;
    }
    return this.iso;
  }
}
