/**
 * The quick start's client: registers handlers for the three remote tools of 10xgraph.json and
 * runs one conversation for each through the remote-tool loop of a running `10xgraph api`.
 *
 *   npx 10xgraph api --config examples/quickstart/10xgraph.json     # in one terminal
 *   node --import tsx examples/quickstart/client.ts [URL]           # in another
 *
 * URL defaults to TENXGRAPH_URL, then http://127.0.0.1:8000. TENXGRAPH_TOKEN, when set, is sent.
 * The server's model is a scripted stand-in, so the conversations are always the same.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { failureReasonOf, isFailedResult, Message, TenxGraphClient } from '10xgraph-client';
import type { Message as WireMessage, ToolCallContext } from '10xgraph-client';

/** The conversations the quick start runs: one per remote tool. */
export const QUICKSTART_PROMPTS = ['Where am I right now?', "What's on my clipboard?", 'Search the database for coffee'] as const;

/**
 * A fixed location. In a browser this handler would call `navigator.geolocation.getCurrentPosition`
 * (honouring `timeout_ms`); here it is a stand-in so the example runs anywhere.
 */
export const DEMO_LOCATION = { latitude: 48.8584, longitude: 2.2945, accuracy_m: 25, label: 'Champ de Mars, Paris (demo location)' } as const;

/** A fixed clipboard text: in a browser this would be `navigator.clipboard.readText()`. */
export const DEMO_CLIPBOARD = 'Remember: ship the 10xgraph quick start on Friday.';

const NOTES: Array<[string, string]> = [
  ['Coffee beans', 'Order 1 kg of Ethiopian coffee beans from the roastery.'],
  ['Dentist', 'Appointment on Tuesday at 9:30.'],
  ['Coffee with Ana', 'Meet Ana at the corner café on Thursday to talk about the launch.'],
  ['Reading list', 'The Pragmatic Programmer; Designing Data-Intensive Applications.'],
  ['Groceries', 'Milk, oats, apples, 100% rye bread.'],
];

/** A small local database for `search_local_database`: a real SQLite file in a temporary folder. */
export class LocalNotesDatabase {
  private readonly folder: string;
  private readonly db: Database.Database;
  private readonly search: Database.Statement<[string, string]>;

  /** Creates the database and its `notes` table with a few rows. */
  constructor() {
    this.folder = mkdtempSync(join(tmpdir(), '10xgraph-quickstart-'));
    this.db = new Database(join(this.folder, 'notes.sqlite'));
    this.db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL)');
    const insert = this.db.prepare('INSERT INTO notes (title, body) VALUES (?, ?)');
    this.db.transaction(() => NOTES.forEach(([title, body]) => insert.run(title, body)))();
    this.search = this.db.prepare("SELECT id, title, body FROM notes WHERE title LIKE ? ESCAPE '\\' OR body LIKE ? ESCAPE '\\' ORDER BY id");
  }

  /** Finds the notes whose title or body contains `query` (case-insensitive for ASCII), as parameters, never spliced into SQL. */
  find(query: string): Array<{ id: number; title: string; body: string }> {
    const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.search.all(pattern, pattern) as Array<{ id: number; title: string; body: string }>;
  }

  /** Closes the database and deletes its folder. */
  close(): void {
    this.db.close();
    rmSync(this.folder, { recursive: true, force: true });
  }
}

/** Registers the quick start's three remote tool handlers on `client`. */
export function registerQuickstartHandlers(client: TenxGraphClient, notes: LocalNotesDatabase): TenxGraphClient {
  return client
    .registerToolHandler('get_user_location', () => ({ ...DEMO_LOCATION }))
    .registerToolHandler('read_clipboard', () => DEMO_CLIPBOARD)
    .registerToolHandler('search_local_database', (args, context: ToolCallContext) => {
      const query = args.query;
      if (typeof query !== 'string' || query.trim() === '') {
        throw new Error(`search_local_database needs a non-empty 'query' string (call ${context.id}).`);
      }
      const matches = notes.find(query.trim());
      return { query: query.trim(), count: matches.length, matches };
    });
}

/** One conversation of the quick start, as `runQuickstartClient` reports it. */
export interface QuickstartTurn {
  prompt: string;
  threadId: string;
  /** The model's final text. */
  answer: string;
  /** How many times the client ran handlers and sent results. */
  rounds: number;
  messages: WireMessage[];
}

/**
 * Runs the three quick-start conversations against the server at `url` through `invoke`, printing
 * each step with `log`, and resolves to what each conversation produced.
 */
export async function runQuickstartClient(url: string, log: (line: string) => void = console.log, token = process.env.TENXGRAPH_TOKEN): Promise<QuickstartTurn[]> {
  const notes = new LocalNotesDatabase();
  const client = registerQuickstartHandlers(new TenxGraphClient({ baseUrl: url, handlerTimeoutMs: 10_000, ...(token ? { token } : {}) }), notes);
  try {
    await client.ping();
    log(`Connected to ${url}; handlers registered for ${client.tools.names().join(', ')}.`);
    const turns: QuickstartTurn[] = [];
    for (const prompt of QUICKSTART_PROMPTS) {
      log('');
      log(`user: ${prompt}`);
      const result = await client.invoke([Message.text_message(prompt)]);
      for (const message of result.messages) for (const line of describeMessage(message)) log(line);
      const last = [...result.messages].reverse().find((message) => message.role === 'assistant');
      const answer = last ? Message.text(last) : '';
      log(`  (thread ${result.thread_id}: ${result.rounds} round${result.rounds === 1 ? '' : 's'} of tool results)`);
      turns.push({ prompt, threadId: result.thread_id, answer, rounds: result.rounds, messages: result.messages });
    }
    return turns;
  } finally {
    client.close();
    notes.close();
  }
}

/** One printed line per block: what the model said or called, and what came back. */
function describeMessage(message: WireMessage): string[] {
  const lines: string[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case 'text':
        if (block.text !== '') lines.push(`${message.role}: ${block.text.replace(/\n/g, '\n    ')}`);
        break;
      case 'tool_call':
        lines.push(`  model calls ${block.name}(${JSON.stringify(block.args)})`);
        break;
      case 'remote_tool_call':
        lines.push(`  server hands ${block.name} to the client (call ${block.id})`);
        break;
      case 'tool_result':
        lines.push(isFailedResult(block) ? `  result of ${block.call_id}: failed: ${failureReasonOf(block)}` : `  result of ${block.call_id}: ${JSON.stringify(block.output)}`);
        break;
    }
  }
  return lines;
}

if (typeof require !== 'undefined' && typeof module !== 'undefined' && require.main === module) {
  const url = process.argv[2] ?? process.env.TENXGRAPH_URL ?? 'http://127.0.0.1:8000';
  runQuickstartClient(url).then(
    () => undefined,
    (error: unknown) => {
      process.stderr.write(`quickstart client: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
