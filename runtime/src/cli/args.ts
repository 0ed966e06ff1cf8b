/** The command line's words are off: the message says which and how. */
export class UsageError extends Error {}

/** One word of the command line: a flag (or a positional), and its value when it takes one. */
export interface Arg {
  flag: string;
  /** The flag's value: `--flag=value` or the next word. Throws `UsageError` when there is none. */
  value(): string;
}

/** Walks `argv` word by word; a flag's `value()` consumes the word after it. */
export function* readArgs(argv: readonly string[]): Generator<Arg> {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    yield {
      flag,
      value: () => {
        if (eq > 0) return arg.slice(eq + 1);
        const next = argv[++i];
        if (next === undefined) throw new UsageError(`${flag} needs a value.`);
        return next;
      },
    };
  }
}
