/**
 * The browser example's page script: a chat with the quick-start graph on `10xgraph api`, whose
 * remote tools this page answers with the browser's own APIs (handlers.ts). Every conversation
 * runs through the client's remote-tool loop over the transport picked in the page: `invoke`,
 * the HTTP stream or the WebSocket. Errors are shown in the page, in words that say what to do.
 *
 * Bundled by examples/browser/serve.ts with esbuild; served next to index.html.
 */
import { Message, TenxGraphClient, TenxGraphError } from '10xgraph-client';
import type { Block, StreamChunk, ToolCallContext } from '10xgraph-client';
import { browserHandlers, TOOL_NAMES, type ToolName } from './handlers';
import { NotesDatabase } from './notesDatabase';

type Transport = 'invoke' | 'http' | 'ws';

/** What the settings of the page say when a conversation starts. */
interface Settings {
  baseUrl: string;
  token: string;
  transport: Transport;
  /** The tools whose handler this page registers; the others get `Tool '<name>' not found`. */
  enabled: ToolName[];
}

const TRANSPORT_LABELS: Record<Transport, string> = { invoke: 'invoke', http: 'the HTTP stream', ws: 'the WebSocket' };
/** A handler that has not settled by then fails its call (the browser's own prompts included). */
const HANDLER_TIMEOUT_MS = 20_000;

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`The page has no #${id}: index.html and app.js do not match.`);
  return found as T;
}

const ui = {
  serverUrl: element<HTMLInputElement>('server-url'),
  token: element<HTMLInputElement>('token'),
  transport: element<HTMLSelectElement>('transport'),
  serverStatus: element<HTMLElement>('server-status'),
  conversation: element<HTMLElement>('conversation'),
  error: element<HTMLElement>('error'),
  form: element<HTMLFormElement>('prompt-form'),
  prompt: element<HTMLInputElement>('prompt'),
  send: element<HTMLButtonElement>('send'),
  stop: element<HTMLButtonElement>('stop'),
  databaseStatus: element<HTMLElement>('database-status'),
  notes: element<HTMLTableSectionElement>('notes-rows'),
};

// The WebAssembly is served beside the page (serve.ts reads it from node_modules/sql.js), never from a CDN.
const database = NotesDatabase.open(new URL('sql-wasm-browser.wasm', document.baseURI).href);
const handlers = browserHandlers(database);

function readSettings(): Settings {
  const transport = ui.transport.value as Transport;
  const enabled = TOOL_NAMES.filter((name) => element<HTMLInputElement>(`handler-${name}`).checked);
  return { baseUrl: ui.serverUrl.value.trim(), token: ui.token.value, transport, enabled };
}

/**
 * Makes a client for `settings` with the page's handlers, as the README's client section does.
 * `onRun` hears each handler start, so the page can show it while `invoke` is still waiting.
 */
function createClient(settings: Settings = readSettings(), onRun?: (name: ToolName, args: Record<string, unknown>, context: ToolCallContext) => void): TenxGraphClient {
  const client = new TenxGraphClient({ baseUrl: settings.baseUrl, handlerTimeoutMs: HANDLER_TIMEOUT_MS, ...(settings.token ? { token: settings.token } : {}) });
  for (const name of settings.enabled) {
    const handler = handlers[name];
    client.registerToolHandler(name, (args, context) => {
      onRun?.(name, args, context);
      return handler(args, context);
    });
  }
  return client;
}

/** One conversation in the page: the prompt, what the model and the page did, the answer or the error. */
class Turn {
  readonly root: HTMLElement;
  private readonly events: HTMLOListElement;
  private readonly names = new Map<string, string>();
  private readonly seen = new Set<string>();
  threadId?: string;

  constructor(prompt: string, transport: Transport) {
    this.root = document.createElement('article');
    this.root.className = 'turn';
    this.root.dataset.state = 'running';
    this.root.dataset.transport = transport;
    const header = document.createElement('header');
    header.textContent = `through ${TRANSPORT_LABELS[transport]}`;
    const question = document.createElement('p');
    question.className = 'user';
    question.textContent = prompt;
    this.events = document.createElement('ol');
    this.events.className = 'events';
    this.root.append(header, question, this.events);
    ui.conversation.append(this.root);
    scrollToEnd();
  }

  /** Notes the thread the conversation runs on. */
  thread(id: string | null | undefined): void {
    if (!id || this.threadId === id) return;
    this.threadId = id;
    this.root.dataset.thread = id;
    this.root.querySelector('header')!.textContent += ` · thread ${id}`;
  }

  /** A line in the list of steps. */
  note(className: string, text: string): void {
    const item = document.createElement('li');
    item.className = className;
    item.textContent = text;
    this.events.append(item);
    scrollToEnd();
  }

  /** Shows one message of the thread (each once, whichever way it arrives). */
  message(message: Message): void {
    if (this.seen.has(message.message_id)) return;
    this.seen.add(message.message_id);
    for (const block of message.content) this.block(message.role, block);
  }

  /** Shows one chunk of a stream. */
  chunk(chunk: StreamChunk): void {
    switch (chunk.event) {
      case 'metadata':
        this.thread(chunk.data.thread_id);
        break;
      case 'message':
        this.message(chunk.data);
        break;
      case 'remote_tool_calls':
        this.thread(chunk.data.thread_id);
        break;
      case 'error':
        this.fail(`The server stopped the run (${chunk.data.code}): ${chunk.data.message}`);
        break;
      case 'end':
        this.thread(chunk.data.thread_id);
        break;
    }
  }

  private block(role: string, block: Block): void {
    switch (block.type) {
      case 'text': {
        if (block.text === '' || role !== 'assistant') return;
        const answer = document.createElement('p');
        answer.className = 'answer';
        answer.textContent = block.text;
        this.root.append(answer);
        scrollToEnd();
        return;
      }
      case 'tool_call':
        this.names.set(block.id, block.name);
        this.note('call', `The model calls ${block.name}(${JSON.stringify(block.args)})`);
        return;
      case 'remote_tool_call':
        this.names.set(block.id, block.name);
        this.note('remote', `The server hands ${block.name} to this page`);
        return;
      case 'tool_result': {
        const name = this.names.get(block.call_id) ?? block.call_id;
        if (block.status === 'completed') this.note('result completed', `${name} → ${JSON.stringify(block.output)}`);
        else this.note('result failed', `${name} failed: ${block.error ?? 'no reason given'}`);
        return;
      }
    }
  }

  /** Marks the conversation finished (unless it already failed). */
  finish(): void {
    if (this.root.dataset.state === 'running') this.root.dataset.state = 'done';
  }

  /** Marks the conversation failed and says why, in the turn and in the page's alert. */
  fail(text: string): void {
    this.root.dataset.state = 'error';
    const error = document.createElement('p');
    error.className = 'turn-error';
    error.textContent = text;
    this.root.append(error);
    scrollToEnd();
    showError(text);
  }
}

/** Keeps the newest step of the conversation in view. */
function scrollToEnd(): void {
  ui.conversation.scrollTop = ui.conversation.scrollHeight;
}

function showError(text: string): void {
  ui.error.textContent = text;
  ui.error.hidden = false;
}

function hideError(): void {
  ui.error.textContent = '';
  ui.error.hidden = true;
}

/**
 * Whether anything answers HTTP at `baseUrl`. A browser never says why a cross-origin request
 * failed; an opaque (`no-cors`) request succeeds whatever the CORS headers, so it tells a
 * stopped server from one that refuses this page's origin.
 */
async function serverAnswers(baseUrl: string): Promise<boolean> {
  try {
    await fetch(`${baseUrl.replace(/\/+$/, '')}/ping`, { mode: 'no-cors', cache: 'no-store', signal: AbortSignal.timeout(3_000) });
    return true;
  } catch {
    return false;
  }
}

/** Turns a failure into what the page tells the user: what happened, and what to do. */
async function explain(error: unknown, settings: Settings, threadId: string | undefined): Promise<string> {
  const server = `the 10xgraph server at ${settings.baseUrl}`;
  const origin = window.location.origin;
  if (error instanceof DOMException && error.name === 'AbortError') return 'Stopped: the conversation was cancelled in this page.';
  if (!(error instanceof TenxGraphError)) return error instanceof Error ? error.message : String(error);
  const during = threadId ? ` in the middle of the conversation (thread ${threadId})` : '';
  switch (error.code) {
    case 'network_error': {
      if (!(await serverAnswers(settings.baseUrl))) {
        if (threadId) return `Lost ${server}${during}: it has stopped. Start it again (npm run example:browser) and send again. (${error.message})`;
        return `Cannot reach ${server}: it is not running. Start it (npm run example:browser), or fix the Server field. (${error.message})`;
      }
      if (settings.transport === 'ws') {
        return `${capitalise(server)} is running but refused this page's WebSocket: the page's origin ${origin} is not allowed, or the token is wrong. Start 10xgraph api with --cors-origin ${origin} and check the token.`;
      }
      return `${capitalise(server)} is running but refused this page's origin ${origin}, so the browser blocked its answers. Start 10xgraph api with --cors-origin ${origin} (or list the origin in TENXGRAPH_CORS_ORIGINS).`;
    }
    case 'connection_closed':
    case 'stream_incomplete':
      return `The connection to ${server} was lost${during}: ${error.message}`;
    case 'unauthorized':
      return `${capitalise(server)} refused the request (${error.status} unauthorized): ${error.message} Enter its token (TENXGRAPH_TOKEN) in the Token field.`;
    default:
      return `${capitalise(server)} refused the request (${error.status ? `${error.status} ` : ''}${error.code}): ${error.message}`;
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

let running: AbortController | undefined;

function setBusy(busy: boolean): void {
  ui.send.disabled = busy;
  ui.stop.disabled = !busy;
  document.body.dataset.busy = String(busy);
}

/** Runs one conversation through the remote-tool loop and shows it as it goes. */
async function converse(prompt: string): Promise<void> {
  const settings = readSettings();
  hideError();
  const turn = new Turn(prompt, settings.transport);
  if (settings.baseUrl === '') {
    turn.fail('Enter the URL of a running 10xgraph api in the Server field, e.g. http://127.0.0.1:8000.');
    return;
  }
  const controller = new AbortController();
  running = controller;
  setBusy(true);
  let client: TenxGraphClient | undefined;
  try {
    client = createClient(settings, (name, args, context) => {
      turn.thread(context.thread_id);
      turn.note('running', `This page runs ${name}(${JSON.stringify(args)})`);
    });
    const messages = [Message.text_message(prompt)];
    if (settings.transport === 'invoke') {
      const result = await client.invoke(messages, { signal: controller.signal });
      turn.thread(result.thread_id);
      for (const message of result.messages) turn.message(message);
    } else {
      for await (const chunk of client.stream(messages, { transport: settings.transport, signal: controller.signal })) turn.chunk(chunk);
    }
    turn.finish();
  } catch (error) {
    turn.fail(await explain(error, settings, turn.threadId));
  } finally {
    client?.close();
    if (running === controller) running = undefined;
    setBusy(false);
  }
}

/** Counts the checks started: only the newest one may write the status line. */
let checks = 0;

/**
 * Pings the server of the Server field and says in the page whether it answers. Checks overlap
 * (the field's change, the token's, the Check button): an older one that ends later must not
 * overwrite the newer verdict, and the state changes together with its sentence.
 */
async function checkServer(): Promise<void> {
  const check = ++checks;
  const settings = readSettings();
  showStatus('checking', `Checking ${settings.baseUrl}…`);
  let state: 'connected' | 'offline';
  let text: string;
  try {
    await createClient(settings).ping({ signal: AbortSignal.timeout(5_000) });
    state = 'connected';
    text = `Connected to ${settings.baseUrl}.`;
  } catch (error) {
    state = 'offline';
    // The check is an HTTP request whatever the transport picked for conversations.
    text = await explain(error, { ...settings, transport: 'invoke' }, undefined);
  }
  if (check === checks) showStatus(state, text);
}

function showStatus(state: 'checking' | 'connected' | 'offline', text: string): void {
  ui.serverStatus.dataset.state = state;
  ui.serverStatus.textContent = text;
}

async function showDatabase(): Promise<void> {
  try {
    const notes = await database;
    for (const note of notes.all()) {
      const row = ui.notes.insertRow();
      for (const value of [String(note.id), note.title, note.body]) row.insertCell().textContent = value;
    }
    ui.databaseStatus.dataset.state = 'ready';
    ui.databaseStatus.textContent = `SQLite ${notes.version()} in this page (WebAssembly), table notes:`;
  } catch (error) {
    ui.databaseStatus.dataset.state = 'failed';
    ui.databaseStatus.textContent = `The page's SQLite database did not load: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** `config.json` beside the page names the server it was served for; any other host keeps the default. */
async function loadConfig(): Promise<void> {
  try {
    const response = await fetch('config.json', { cache: 'no-store' });
    if (!response.ok) return;
    const config = (await response.json()) as { apiUrl?: unknown };
    if (typeof config.apiUrl === 'string' && config.apiUrl !== '') ui.serverUrl.value = config.apiUrl;
  } catch {
    // No config beside the page: the Server field's default stands.
  }
}

ui.form.addEventListener('submit', (event) => {
  event.preventDefault();
  const prompt = ui.prompt.value.trim();
  if (prompt === '' || running) return;
  void converse(prompt);
});
document.querySelectorAll<HTMLButtonElement>('button[data-prompt]').forEach((button) => {
  button.addEventListener('click', () => {
    ui.prompt.value = button.dataset.prompt ?? '';
    ui.form.requestSubmit();
  });
});
ui.stop.addEventListener('click', () => running?.abort(new DOMException('Stopped in the page.', 'AbortError')));
// Enter in a settings field checks the server rather than reloading the page.
element<HTMLFormElement>('settings').addEventListener('submit', (event) => {
  event.preventDefault();
  void checkServer();
});
ui.serverUrl.addEventListener('change', () => void checkServer());
ui.token.addEventListener('change', () => void checkServer());

// For the console (and the benchmark): the page's own client, with the page's handlers.
(window as unknown as { tenxgraphExample: unknown }).tenxgraphExample = { createClient: () => createClient(), Message };

void showDatabase();
void loadConfig().then(checkServer);
