/** A command line that cannot be run as written: one line on stderr, then a pointer to --help; exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A file the command was given that cannot be used: said in one line naming it, with no --help hint (the flags were right). */
export class InputError extends UsageError {
  override name = 'InputError';
}
