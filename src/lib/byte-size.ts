/** Units of a size, in bytes: 1024 each step, as the `bytes` package express.json reads its limit with. */
const BYTE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** A size such as 512kb, 256mb or 1gb in bytes; undefined for any other text, or one past a safe integer. */
export function parseByteSize(text: string): number | undefined {
  const match = /^(\d+)(b|kb|mb|gb)$/i.exec(text);
  if (!match) return undefined;
  const bytes = Number(match[1]) * (BYTE_UNITS[(match[2] as string).toLowerCase()] as number);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}
