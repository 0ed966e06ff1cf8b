/** Small measuring tools shared by the benchmarks: medians, percentiles, ratios, child-process memory. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** The median of `samples`. */
export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** The `p`th percentile (nearest rank) of `samples`. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** Runs `fn` `runs` times after `warmup` runs and returns the times in milliseconds. */
export function timeRuns(fn: () => unknown, runs: number, warmup = 2): number[] {
  for (let i = 0; i < warmup; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times;
}

/** Runs a full garbage collection when node was started with --expose-gc. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Formats milliseconds for a table. */
export function ms(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

/** Formats a ratio as `1.23×`. */
export function ratio(value: number): string {
  return `${value.toFixed(2)}×`;
}

/** A Markdown table. */
export function table(header: string[], rows: string[][]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/**
 * Peak memory of one run of `impl` on a generated config of `tools` tools, measured in a fresh
 * process: the peak resident set size minus the resident size once the text is in memory.
 */
export function peakMemoryMiB(impl: string, tools: number): number {
  const child = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'memoryChild.ts'), impl, String(tools)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  const match = /peak=(\d+)/.exec(child.stdout);
  if (!match) throw new Error(`memory probe for ${impl} at ${tools} tools failed: ${child.stderr.slice(0, 500)}`);
  return Number(match[1]) / 1024;
}
