/**
 * The Python example's client: registers handlers for the two remote tools of 10xgraph.json and
 * asks the running Python server one question for each. The graph (graph/react.py) runs in the
 * 10xGraph server; the handlers run here.
 *
 *   10xgraph-api --config examples/python/10xgraph.json        # the Python server, in one terminal
 *   node --import tsx examples/python/client.ts [URL]          # in another
 *
 * URL defaults to TENXGRAPH_URL, then http://127.0.0.1:8000. TENXGRAPH_TOKEN, when set, is sent.
 */
import { Message, TenxGraphClient } from '10xgraph-client';

/** A fixed location: on a phone or in a browser this would ask the device. */
export const DEMO_LOCATION = { latitude: 48.8584, longitude: 2.2945, accuracy_m: 25, label: 'Champ de Mars, Paris (demo location)' } as const;

/** A fixed clipboard text: in a browser this would be `navigator.clipboard.readText()`. */
export const DEMO_CLIPBOARD = 'Remember: water the plants.';

/** Registers the example's two remote tool handlers on `client`. */
export function registerPythonExampleHandlers(client: TenxGraphClient): TenxGraphClient {
  return client.registerToolHandler('get_user_location', () => ({ ...DEMO_LOCATION })).registerToolHandler('read_clipboard', () => DEMO_CLIPBOARD);
}

/** Asks the server at `url` one question per remote tool and prints each answer with `log`. */
export async function runPythonExampleClient(url: string, log: (line: string) => void = console.log, token = process.env.TENXGRAPH_TOKEN): Promise<void> {
  const client = registerPythonExampleHandlers(new TenxGraphClient({ baseUrl: url, handlerTimeoutMs: 10_000, ...(token ? { token } : {}) }));
  try {
    await client.ping();
    log(`Connected to ${url}; handlers registered for ${client.tools.names().join(', ')}.`);
    for (const prompt of ['Where am I right now?', "What's on my clipboard?"]) {
      const result = await client.invoke([Message.text_message(prompt)]);
      const last = [...result.messages].reverse().find((message) => message.role === 'assistant');
      log(`user: ${prompt}`);
      log(`assistant: ${last ? Message.text(last) : '(no answer)'}`);
    }
  } finally {
    client.close();
  }
}

if (typeof require !== 'undefined' && typeof module !== 'undefined' && require.main === module) {
  const url = process.argv[2] ?? process.env.TENXGRAPH_URL ?? 'http://127.0.0.1:8000';
  runPythonExampleClient(url).then(
    () => undefined,
    (error: unknown) => {
      process.stderr.write(`python example client: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
