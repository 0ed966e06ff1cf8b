/** A small seeded random source, so a failing run can be replayed from the seed it prints. */

/** A seeded pseudo-random generator (mulberry32). */
export class Random {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** One item of a list. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** The seed of a run: `envName` when set (to replay a failure), else `fallback`. */
export function seedFrom(envName: string, fallback: number): number {
  const raw = process.env[envName];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'random') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(raw);
  if (!Number.isInteger(seed)) throw new Error(`${envName} must be an integer or "random", not '${raw}'.`);
  return seed;
}

/** A whole number from the environment (a longer run on demand), else `fallback`. */
export function countFrom(envName: string, fallback: number): number {
  const raw = process.env[envName];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${envName} must be a whole number, not '${raw}'.`);
  return n;
}
