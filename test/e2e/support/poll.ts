/**
 * Waiting without fixed sleeps: every wait in the e2e suite polls for the state it needs and
 * fails with what it was waiting for.
 */

/** Polls `probe` every `intervalMs` until it returns a value other than undefined; fails after `timeoutMs`. */
export async function poll<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000, intervalMs = 150): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : lastError !== undefined ? ` (last error: ${String(lastError)})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
