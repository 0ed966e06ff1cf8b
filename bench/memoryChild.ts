/** Child process of `peakMemoryMiB`: runs one implementation once and prints its peak memory. */
import { generateConfig } from './generate';
import { SYNC, jsonLanguageService } from './implementations';

async function main(): Promise<void> {
  const [impl, count] = process.argv.slice(2);
  const text = generateConfig(Number(count));
  // Warm the code paths on a small text so the measure is the data, not the compiled code.
  const small = generateConfig(50);
  if (impl === 'vscode-json-languageservice') await jsonLanguageService(small);
  else SYNC[impl](small);
  global.gc?.();
  const base = process.memoryUsage().rss;
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  let result: unknown;
  if (impl === 'vscode-json-languageservice') result = await jsonLanguageService(text);
  else result = SYNC[impl](text);
  const peak = Math.max(process.resourceUsage().maxRSS * 1024, peakBefore);
  void result;
  process.stdout.write(`peak=${Math.max(0, Math.round((peak - Math.max(base, peakBefore)) / 1024))}\n`);
}
void main();
