/**
 * How the fuzz properties run. In CI (no environment) every property runs a fixed seed and its
 * own bounded count, so a failure reproduces exactly. `npm run fuzz` (scripts/fuzz.mjs) sets
 * `FUZZ_SEED` (random unless given) and `FUZZ_RUNS` (runs per property) and collects failures
 * through `FUZZ_REPORT`, a file each failing property appends one JSON line to.
 */
import { appendFileSync } from 'node:fs';
import fc from 'fast-check';

/** The seed CI runs with: fixed, so a red build is the same red build on every machine. */
export const CI_SEED = 10_2024;

/** Integer from an environment variable, or undefined when unset or not an integer. */
function envInteger(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new Error(`${name} must be an integer, not '${raw}'.`);
  return value;
}

/** The seed of this run: `FUZZ_SEED`, else the CI seed. */
export function fuzzSeed(): number {
  return envInteger('FUZZ_SEED') ?? CI_SEED;
}

/**
 * How many runs a property gets: `FUZZ_RUNS` when set, else its CI count. A costly property
 * (one that spawns processes) gets a twentieth of `FUZZ_RUNS`, never fewer than its CI count.
 */
export function fuzzRuns(ciRuns: number, costly = false): number {
  const runs = envInteger('FUZZ_RUNS');
  if (runs === undefined || runs <= 0) return ciRuns;
  return costly ? Math.max(ciRuns, Math.ceil(runs / 20)) : runs;
}

/** A counterexample as people can read it: strings escaped so lone surrogates, NULs and CRs show. */
export function describeCounterexample(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, v: unknown) => (v instanceof Map ? Object.fromEntries(v) : v), 2) ?? String(value);
  } catch {
    return fc.stringify(value);
  }
}

/**
 * Runs `property` with the run's seed and count and, on failure, throws an Error that names the
 * property, the seed, the replay path and the shrunk counterexample (and appends the same to
 * `FUZZ_REPORT` when set). Node's test runner prints the Error.
 */
export async function checkProperty<T>(name: string, property: fc.IProperty<T> | fc.IAsyncProperty<T>, ciRuns: number, options: { costly?: boolean } = {}): Promise<void> {
  const seed = fuzzSeed();
  const numRuns = fuzzRuns(ciRuns, options.costly);
  const details = await fc.check(property as fc.IAsyncProperty<T>, { seed, numRuns });
  if (!details.failed) return;
  const error = details.errorInstance;
  const reason = error instanceof Error ? error.message : String(error);
  const counterexample = details.counterexample ? describeCounterexample(details.counterexample) : '(none)';
  const report = [
    `property "${name}" failed after ${details.numRuns} run(s) and ${details.numShrinks} shrink(s)`,
    `seed: ${details.seed}   path: ${details.counterexamplePath ?? '-'}   (replay: FUZZ_SEED=${details.seed} FUZZ_RUNS=${numRuns} node scripts/test.mjs test/hardening/fuzz)`,
    `counterexample: ${counterexample}`,
    `reason: ${reason}`,
  ].join('\n');
  const file = process.env.FUZZ_REPORT;
  if (file) appendFileSync(file, JSON.stringify({ property: name, seed: details.seed, path: details.counterexamplePath, runs: numRuns, counterexample, reason }) + '\n');
  const failure = new Error(report);
  if (error instanceof Error && error.stack) failure.stack = `${report}\n--- the failing assertion ---\n${error.stack}`;
  throw failure;
}
