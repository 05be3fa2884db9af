/**
 * The one place that reads the wall clock. Everything else asks a workspace's
 * VirtualClock, so tests and scenarios can move time without sleeping.
 */
export type RealTime = () => number;

export const systemTime: RealTime = () => Date.now();
