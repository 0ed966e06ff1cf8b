/**
 * Benchmark of the remote-tool loop over loopback: `TenxGraphClient.invoke` against
 * `10xgraph api` running the quick-start graph (ScriptedModel) with threads in memory, beside the
 * bare `node:http` floor, through the one round-trip harness the store section uses too
 * (bench/roundTrip.ts): wall time and the server process's CPU per round trip.
 *
 *   node --import tsx bench/runtime.ts      # after `npm run build`; prints the Markdown section
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { describeHarness, measureStores, ROUND_TRIP_HEADER } from './roundTrip';

const CONFIG = resolve(__dirname, '..', 'examples', 'quickstart', '10xgraph.json');

/**
 * Runs the benchmark and returns it as a Markdown section: median and p99 latency, throughput and
 * server CPU of remote-tool round trips at 1, 10 and 100 concurrent clients, with the floor and ratios.
 */
export async function benchRuntime(log: (line: string) => void = () => {}): Promise<string> {
  const rows = await measureStores(CONFIG, [['memory', ':memory:']], log);
  return [
    '## Runtime: remote-tool round trips over loopback',
    '',
    'One round trip is `TenxGraphClient.invoke("Where am I?")` against `10xgraph api` serving the quick-start graph',
    '(ScriptedModel, threads in memory: the store section measures the same round trip on SQLite and PostgreSQL, with the',
    'same harness, bench/roundTrip.ts): the run stops on the `get_user_location` remote call, the client runs its handler and',
    'sends the result on the same thread, and the model answers: two HTTP exchanges and two graph runs on a new thread.',
    ...describeHarness(availableParallelism()),
    '',
    ...ROUND_TRIP_HEADER,
    ...rows,
    '',
  ].join('\n');
}

if (require.main === module) {
  benchRuntime((line) => process.stderr.write(`${line}\n`)).then(
    (section) => process.stdout.write(section + '\n'),
    (error: unknown) => {
      process.stderr.write(`bench/runtime: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
