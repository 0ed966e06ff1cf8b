/**
 * The command line of each command, read by node:util's `parseArgs` (its tokens, so that the
 * words are judged in order, and its errors are the CLI's own sentences, the same for every
 * command: `unknown option '--x'.`, `--out needs a value.`).
 */
import { parseArgs } from 'node:util';

/** The command line's words are off: the message says which and how. */
export class UsageError extends Error {}

/**
 * A command's options by long name (no dashes): a flag (`boolean`), one that takes a value
 * (`string`), or a flag whose value may follow it as `--flag=value` only (`optionalValue`: never
 * the next word, which stays a positional).
 */
export type OptionSpecs = Record<string, { type: 'string' | 'boolean'; short?: string; optionalValue?: boolean }>;

/** One word of the command line: an option (`--name`, or `-h` as written) or a positional (the word itself). */
export interface Arg {
  flag: string;
  /** The option's value (`--flag=value` or the next word); '' for a flag or a positional. */
  value(): string;
}

/**
 * Reads `argv` against `options`, word by word in order (a caller may stop at `--help` before a
 * later word is judged). An option taking a value takes `--flag=value` or the next word, whatever
 * it is (`--port -1` is judged by the caller, not taken for an option); after `--` every word is a
 * positional. Throws `UsageError` on reaching an unknown option, an option without its value, or
 * a flag given a value (`--fix=yes`).
 */
export function* readArgs(argv: readonly string[], options: OptionSpecs): Generator<Arg> {
  // Not strict: parseArgs would refuse `--format --fix` and `--db -x` as ambiguous, where the
  // word after an option that takes a value is that value; the tokens are judged here instead.
  const config = Object.fromEntries(Object.entries(options).map(([name, { type, short }]) => [name, short === undefined ? { type } : { type, short }]));
  const { tokens } = parseArgs({ args: [...argv], options: config, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'option-terminator') continue;
    if (token.kind === 'positional') {
      yield { flag: token.value, value: () => '' };
      continue;
    }
    const spec = Object.prototype.hasOwnProperty.call(options, token.name) ? options[token.name] : undefined;
    if (!spec || (token.rawName !== `--${token.name}` && token.rawName !== `-${spec.short}`)) throw new UsageError(`unknown option '${token.rawName}'.`);
    if (spec.type === 'string' && token.value === undefined) throw new UsageError(`${token.rawName} needs a value.`);
    if (spec.type === 'boolean' && token.inlineValue && !spec.optionalValue) throw new UsageError(`${token.rawName} takes no value.`);
    const value = token.value ?? '';
    yield { flag: token.rawName, value: () => value };
  }
}
