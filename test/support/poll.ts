/**
 * Waiting without fixed sleeps: every wait in the test suites polls for the state it needs and
 * fails with what it was waiting for. The end-to-end harness bundles this too.
 */

/**
 * Polls `probe` until it returns a value other than undefined or false; fails after `timeoutMs`
 * with `what` and the probe's last error. Without `intervalMs` the pause between probes starts at
 * 2 ms and doubles up to 50 ms, so a quick state is seen quickly and a slow one costs little.
 */
export async function poll<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000, intervalMs?: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  let pause = intervalMs ?? 2;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : lastError !== undefined ? ` (last error: ${String(lastError)})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`);
    }
    await new Promise((wake) => setTimeout(wake, pause));
    if (intervalMs === undefined) pause = Math.min(50, pause * 2);
  }
}

/** Resolves with `promise`, or with undefined once `ms` have passed: a bound on a wait, not a sleep. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}
