import { LastIso } from './last-iso.js';
import { systemTime, type RealTime } from './real-time.js';

/**
 * Why a virtual clock cannot start at `ms`, if it cannot: before the Unix epoch (1970), a time the
 * real service never answers with, and which every instant the mock keeps as milliseconds (a
 * snapshot's `clock.nowMs`, jobs' due times) declares non-negative.
 */
export function clockStartProblem(ms: number): string | undefined {
  return ms < 0 ? 'is before 1970-01-01T00:00:00Z, where the virtual clock cannot start' : undefined;
}

/** What a clock persists: where virtual time stood, and whether it was moving. */
export interface ClockState {
  nowMs: number;
  frozen: boolean;
}

/**
 * A workspace's virtual clock. While running it moves with the wall clock from an
 * anchor; frozen, it stands still until advanced. It never moves backwards.
 */
export class VirtualClock {
  private anchorVirtual: number;
  private anchorReal: number;
  private isFrozen: boolean;
  /** Asked many times per job and request at one instant: formatting it again was a tenth of an advance. */
  private readonly iso = new LastIso();

  constructor(
    state: ClockState,
    private readonly realTime: RealTime = systemTime,
  ) {
    this.anchorVirtual = state.nowMs;
    this.anchorReal = realTime();
    this.isFrozen = state.frozen;
  }

  now(): number {
    if (this.isFrozen) return this.anchorVirtual;
    return this.anchorVirtual + (this.realTime() - this.anchorReal);
  }

  nowIso(): string {
    return this.iso.of(this.now());
  }

  get frozen(): boolean {
    return this.isFrozen;
  }

  /** Moves the clock to `ms`; a target in the past leaves it where it is. */
  moveTo(ms: number): void {
    if (ms <= this.now()) return;
    this.anchorVirtual = ms;
    this.anchorReal = this.realTime();
  }

  freeze(): void {
    if (this.isFrozen) return;
    this.anchorVirtual = this.now();
    this.isFrozen = true;
  }

  resume(): void {
    if (!this.isFrozen) return;
    this.anchorReal = this.realTime();
    this.isFrozen = false;
  }

  state(): ClockState {
    return { nowMs: this.now(), frozen: this.isFrozen };
  }
}
