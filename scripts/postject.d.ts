// postject ships no types: the one function scripts/build-binary.ts calls, as its README documents it.
declare module 'postject' {
  export function inject(
    filename: string,
    resourceName: string,
    resourceData: Buffer,
    options?: { machoSegmentName?: string; overwrite?: boolean; sentinelFuse?: string },
  ): Promise<void>;
}
