/**
 * The browser example's page script: a conversation with the quick-start graph on `10xgraph api`,
 * whose remote tools this page answers with the browser's own APIs (handlers.ts). Every message
 * runs through the client's remote-tool loop over the transport picked in the page (`invoke`, the
 * HTTP stream or the WebSocket), on one thread until "New conversation". The transcript lists
 * what happened in the order it happened; an error is shown once, in the turn it ended, with
 * what to do.
 *
 * Bundled by examples/browser/serve.ts with esbuild; served next to index.html.
 */
import { CLIENT_ERROR_CODES, failureReasonOf, isFailedResult, Message, TenxGraphClient, TenxGraphError } from '10xgraph-client';
import type { Block, FetchLike, StreamChunk, ToolCallContext } from '10xgraph-client';
import { browserHandlers, TOOL_NAMES, type ToolName } from './handlers';
import { NotesDatabase } from './notesDatabase';

type Transport = 'invoke' | 'http' | 'ws';

/** What the settings of the page say when a message is sent. */
interface Settings {
  baseUrl: string;
  token: string;
  transport: Transport;
  /** The tools whose handler this page registers; the others get `Tool '<name>' not found`. */
  enabled: ToolName[];
}

/** What the page hears from a client while a message runs. */
interface Observer {
  /** A handler starts: shown while `invoke` is still waiting. */
  onRun(name: ToolName, args: Record<string, unknown>, context: ToolCallContext): void;
  /** Messages an `invoke` request sends or its answer brings, as they travel (the client shows them only at the end). */
  onMessages(messages: Message[], threadId: string | undefined): void;
}

/** What went wrong, for people: a code (on the element, for tests and styles) and one sentence that says what to do. */
interface Problem {
  code: string;
  text: string;
}

/** The verdict of a server check: the state of the status line, and its code and sentence. */
interface Verdict extends Problem {
  state: 'connected' | 'offline';
}

const NO_SERVER: Problem = { code: 'no_server', text: 'Enter the URL of a running 10xgraph api in the Server field, e.g. http://127.0.0.1:8000.' };

const TRANSPORT_LABELS: Record<Transport, string> = { invoke: 'invoke', http: 'the HTTP stream', ws: 'the WebSocket' };
/** A handler that has not settled by then fails its call (the browser's own prompts included). */
const HANDLER_TIMEOUT_MS = 20_000;
/** How long a server check waits for an answer. */
const CHECK_TIMEOUT_MS = 5_000;

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
  thread: element<HTMLElement>('thread'),
  newConversation: element<HTMLButtonElement>('new-conversation'),
  conversation: element<HTMLElement>('conversation'),
  empty: element<HTMLElement>('empty'),
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
  return { baseUrl: ui.serverUrl.value.trim().replace(/\/+$/, ''), token: ui.token.value, transport, enabled };
}

/**
 * Makes a client for `settings` with the page's handlers, as the README's client section does.
 * With an observer, the page hears each handler start and each message `invoke` carries (through
 * a fetch passed in), so the transcript keeps the order of events on every transport.
 */
function createClient(settings: Settings = readSettings(), observer?: Observer): TenxGraphClient {
  const client = new TenxGraphClient({
    baseUrl: settings.baseUrl,
    handlerTimeoutMs: HANDLER_TIMEOUT_MS,
    ...(settings.token ? { token: settings.token } : {}),
    ...(observer ? { fetch: observingFetch(observer) } : {}),
  });
  for (const name of settings.enabled) {
    const handler = handlers[name];
    client.registerToolHandler(name, (args, context) => {
      observer?.onRun(name, args, context);
      return handler(args, context);
    });
  }
  return client;
}

/** The platform's fetch, telling `observer` the messages each `POST /v1/graph/invoke` sends and receives. */
function observingFetch(observer: Observer): FetchLike {
  return async (input, init) => {
    const invoke = input.endsWith('/v1/graph/invoke');
    if (invoke && typeof init?.body === 'string') {
      // The request's thread id may be one the client named itself: only the server's answer says the thread exists.
      const sent = parseJson(init.body) as { messages?: Message[] } | undefined;
      if (Array.isArray(sent?.messages)) observer.onMessages(sent.messages, undefined);
    }
    const response = await fetch(input, init);
    if (invoke && response.ok) {
      const answer = parseJson(await response.clone().text()) as { data?: { messages?: Message[]; meta?: { thread_id?: string } } } | undefined;
      if (Array.isArray(answer?.data?.messages)) observer.onMessages(answer.data.messages, answer.data.meta?.thread_id);
    }
    return response;
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: the client itself reports what is wrong with the answer.
    return undefined;
  }
}

/** A tool's output in words: a position, the notes a search found, or the value itself. */
function describeValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return String(value);
  const record = value as Record<string, unknown>;
  if (typeof record.latitude === 'number' && typeof record.longitude === 'number') {
    return `${record.latitude}, ${record.longitude}${typeof record.accuracy_m === 'number' ? ` (within ${record.accuracy_m} m)` : ''}`;
  }
  if (typeof record.query === 'string' && Array.isArray(record.matches)) {
    const notes = record.matches as Array<{ title?: unknown; body?: unknown }>;
    if (notes.length === 0) return `no note matches “${record.query}”`;
    const listed = notes.map((note) => `${String(note.title)} (${String(note.body)})`).join('; ');
    return `${notes.length} ${notes.length === 1 ? 'note matches' : 'notes match'} “${record.query}”: ${listed}`;
  }
  if (Array.isArray(value)) return value.map(describeValue).join('; ');
  return Object.entries(record)
    .map(([key, item]) => `${key} ${describeValue(item)}`)
    .join(', ');
}

/** A call's arguments as the page lists them: `search_local_database(query "coffee")`. */
function describeCall(name: string, args: unknown): string {
  const entries = typeof args === 'object' && args !== null ? Object.entries(args) : [];
  return `${name}(${entries.map(([key, value]) => `${key} ${JSON.stringify(value)}`).join(', ')})`;
}

/**
 * The model's answer for reading: a line `name: <JSON>` (how the quick start's scripted model
 * lists tool results) has its JSON put in words; any other text stays as the model wrote it.
 */
function readableAnswer(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const match = /^([\w.-]+): ([[{].*)$/.exec(line);
      const value = match ? parseJson(match[2]!) : undefined;
      return match && typeof value === 'object' && value !== null ? `${match[1]}: ${describeValue(value)}` : line;
    })
    .join('\n');
}

/** The conversation of the page: the thread every message goes on, until "New conversation". */
const conversation: { threadId?: string | undefined } = {};

/** Starts a new conversation: an empty transcript, and the next message on a new thread. */
function startConversation(): void {
  conversation.threadId = undefined;
  ui.conversation.replaceChildren(ui.empty);
  showThread();
}

function showThread(): void {
  ui.thread.dataset.thread = conversation.threadId ?? '';
  ui.thread.textContent = conversation.threadId ?? 'not started yet';
}

/** One message of the conversation: the prompt, what the model and the page did, the answer or the error. */
class Turn {
  readonly root: HTMLElement;
  private readonly outcome: HTMLElement;
  private readonly names = new Map<string, string>();
  private readonly seen = new Set<string>();
  /** The paragraphs of answers still streaming, by message id. */
  private readonly live = new Map<string, HTMLElement>();
  private readonly results = { completed: 0, failed: 0 };
  /** The thread, once the server has named it for this message. */
  threadId?: string;

  constructor(prompt: string, transport: Transport) {
    this.root = document.createElement('article');
    this.root.className = 'turn';
    this.root.dataset.state = 'running';
    this.root.dataset.transport = transport;
    const header = document.createElement('header');
    const via = document.createElement('span');
    via.textContent = `You, through ${TRANSPORT_LABELS[transport]}`;
    this.outcome = document.createElement('span');
    this.outcome.className = 'outcome';
    this.outcome.textContent = 'running…';
    header.append(via, this.outcome);
    const question = document.createElement('p');
    question.className = 'user';
    question.textContent = prompt;
    this.root.append(header, question);
    ui.empty.remove();
    ui.conversation.append(this.root);
    scrollToEnd();
  }

  /** Notes the thread the server runs the message on. */
  thread(id: string | null | undefined): void {
    if (!id || this.threadId === id) return;
    this.threadId = id;
    this.root.dataset.thread = id;
  }

  /** A line in the list of steps, after whatever came before it. */
  note(className: string, text: string): void {
    let list = this.root.lastElementChild;
    if (!(list instanceof HTMLUListElement)) {
      list = document.createElement('ul');
      list.className = 'events';
      this.root.append(list);
    }
    const item = document.createElement('li');
    item.className = className;
    item.textContent = text;
    list.append(item);
    scrollToEnd();
  }

  /** Shows one message of the thread (each once, whichever way it arrives); a streamed answer replaces its pieces. */
  message(message: Message): void {
    if (this.seen.has(message.message_id)) return;
    this.seen.add(message.message_id);
    const live = this.live.get(message.message_id);
    this.live.delete(message.message_id);
    live?.remove();
    for (const block of message.content) this.block(message.role, block);
  }

  /** Shows a piece of an answer still being written, in the paragraph its next pieces and the whole answer take over. */
  delta(message: Message): void {
    if (this.seen.has(message.message_id) || message.role !== 'assistant') return;
    let live = this.live.get(message.message_id);
    if (!live) {
      live = document.createElement('p');
      live.className = 'answer streaming';
      this.live.set(message.message_id, live);
      this.root.append(live);
    }
    for (const block of message.content) if (block.type === 'text') live.textContent += block.text;
    scrollToEnd();
  }

  /** Shows one chunk of a stream. */
  chunk(chunk: StreamChunk): void {
    const threadId = chunk.thread_id ?? chunk.metadata?.thread_id;
    if (typeof threadId === 'string') this.thread(threadId);
    if (chunk.event === 'message' && chunk.message) {
      if (chunk.message.delta === true) this.delta(chunk.message);
      else this.message(chunk.message);
    } else if (chunk.event === 'error') {
      const code = typeof chunk.data?.code === 'string' ? chunk.data.code : 'RUN_FAILED';
      const reason = typeof chunk.data?.reason === 'string' ? chunk.data.reason : 'no reason given';
      this.fail({ code, text: `The server stopped the run (${code}): ${reason}` });
    }
  }

  private block(role: string, block: Block): void {
    switch (block.type) {
      case 'text': {
        if (block.text === '' || role !== 'assistant') return;
        const answer = document.createElement('p');
        answer.className = 'answer';
        answer.textContent = readableAnswer(block.text);
        this.root.append(answer);
        scrollToEnd();
        return;
      }
      case 'tool_call':
        this.names.set(block.id, block.name);
        this.note('call', `The model calls ${describeCall(block.name, block.args)}`);
        return;
      case 'remote_tool_call':
        this.names.set(block.id, block.name);
        this.note('remote', `The server hands ${block.name} to this page`);
        return;
      case 'tool_result': {
        const name = this.names.get(block.call_id) ?? block.call_id;
        if (!isFailedResult(block)) {
          this.results.completed++;
          this.note('result completed', `${name} → ${describeValue(block.output)}`);
        } else {
          this.results.failed++;
          this.note('result failed', `${name} failed: ${failureReasonOf(block)}`);
        }
        return;
      }
    }
  }

  /** Marks the message answered (unless it failed), saying whether its tools failed. */
  finish(): void {
    if (this.root.dataset.state !== 'running') return;
    const { completed, failed } = this.results;
    const tools = failed === 0 ? 'ok' : completed === 0 ? 'all-failed' : 'some-failed';
    this.root.dataset.state = 'done';
    this.root.dataset.tools = tools;
    const total = completed + failed;
    this.outcome.textContent =
      tools === 'ok'
        ? 'answered'
        : tools === 'all-failed'
          ? total === 1
            ? 'answered, but the tool failed'
            : `answered, but all ${total} tools failed`
          : `answered, but ${failed} of ${total} tools failed`;
  }

  /** Marks the message failed and says why, once, in the turn. */
  fail(problem: Problem): void {
    if (this.root.dataset.state === 'error') return;
    this.root.dataset.state = 'error';
    this.outcome.textContent = 'failed';
    const error = document.createElement('p');
    error.className = 'turn-error';
    error.setAttribute('role', 'alert');
    error.dataset.code = problem.code;
    error.textContent = problem.text;
    this.root.append(error);
    scrollToEnd();
  }
}

/** Keeps the newest step of the conversation in view. */
function scrollToEnd(): void {
  ui.conversation.scrollTop = ui.conversation.scrollHeight;
}

/**
 * Whether anything answers HTTP at `baseUrl`. A browser never says why a cross-origin request
 * failed; an opaque (`no-cors`) request succeeds whatever the CORS headers, so it tells a
 * stopped server from one that refuses this page's origin.
 */
async function serverAnswers(baseUrl: string): Promise<boolean> {
  try {
    await fetch(`${baseUrl}/ping`, { mode: 'no-cors', cache: 'no-store', signal: AbortSignal.timeout(3_000) });
    return true;
  } catch {
    return false;
  }
}

function serverName(settings: Settings): string {
  return `the 10xgraph server at ${settings.baseUrl}`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A 401: the token is missing or not the server's. */
function explainToken(settings: Settings): Problem {
  const server = capitalise(serverName(settings));
  return settings.token === ''
    ? { code: 'token_missing', text: `${server} needs a token (401 unauthorized): paste its TENXGRAPH_TOKEN into the Token field.` }
    : { code: 'token_wrong', text: `${server} refused the token in the Token field (401 unauthorized): paste the TENXGRAPH_TOKEN it was started with.` };
}

function explainNotRunning(settings: Settings): Problem {
  return { code: 'not_running', text: `Cannot reach ${serverName(settings)}: it is not running. Start it with npm run example:browser, or correct the Server field.` };
}

/** A refusal the server explained itself: its message already says what to do. */
function explainServerError(error: TenxGraphError, settings: Settings): Problem {
  return { code: error.code, text: `${capitalise(serverName(settings))} refused the request (${error.status ? `${error.status} ` : ''}${error.code}): ${error.message}` };
}

/**
 * Why a request to the server failed, for the status line or a message that never reached the
 * server. A refused origin (403 ORIGIN_NOT_ALLOWED) comes without CORS headers, so the browser
 * only says the request failed: the server answering an opaque request then tells it from a
 * stopped one. The WebSocket tells nothing at all of a refused upgrade; the server judges its
 * token and origin as it judges HTTP's, so the same check explains it.
 */
async function explainRefusal(error: unknown, settings: Settings): Promise<Problem> {
  const server = capitalise(serverName(settings));
  if (error instanceof DOMException && error.name === 'TimeoutError') {
    return { code: 'timeout', text: `${server} did not answer within ${CHECK_TIMEOUT_MS / 1000} s: check that it is 10xgraph api and not stuck.` };
  }
  if (!(error instanceof TenxGraphError)) return { code: 'page_error', text: error instanceof Error ? error.message : String(error) };
  if (error.code === 'INVALID_TOKEN') return explainToken(settings);
  if (error.code !== CLIENT_ERROR_CODES.network) return explainServerError(error, settings);
  if (!(await serverAnswers(settings.baseUrl))) return explainNotRunning(settings);
  const origin = window.location.origin;
  return { code: 'origin_not_allowed', text: `${server} refuses this page's origin ${origin} (403 ORIGIN_NOT_ALLOWED): start 10xgraph api with --cors-origin ${origin}.` };
}

/** Asks the server for its graph (a route that needs the token, unlike /ping) and says what the answer means. */
async function checkConnection(settings: Settings): Promise<Verdict> {
  if (settings.baseUrl === '') return { state: 'offline', ...NO_SERVER };
  let client: TenxGraphClient | undefined;
  try {
    client = createClient(settings);
    await client.graph({ signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
    return { state: 'connected', code: 'connected', text: `Connected to ${settings.baseUrl}.` };
  } catch (error) {
    return { state: 'offline', ...(await explainRefusal(error, settings)) };
  } finally {
    client?.close();
  }
}

/** The client's codes of a failure to reach the server, or of a connection lost on the way. */
const CONNECTION_CODES = new Set<string>([CLIENT_ERROR_CODES.network, CLIENT_ERROR_CODES.connectionClosed]);

/** Problems that leave the page unable to talk to the server: the status line then points at the turn that says why. */
const OFFLINE_CODES = new Set(['token_missing', 'token_wrong', 'origin_not_allowed', 'not_running', 'server_stopped']);

/** Turns a failed message into what the page tells the user: what happened, and what to do. */
async function explainFailure(error: unknown, settings: Settings, threadId: string | undefined): Promise<Problem> {
  const server = serverName(settings);
  if (error instanceof DOMException && error.name === 'AbortError') {
    return { code: 'stopped', text: 'Stopped in this page; the thread keeps what was said, so send again to go on.' };
  }
  if (!(error instanceof TenxGraphError)) return { code: 'page_error', text: error instanceof Error ? error.message : String(error) };
  if (error.code === 'INVALID_TOKEN') return explainToken(settings);
  if (error.code === 'MISSING_TOOL_RESULTS' && threadId !== undefined && (await releaseThread(settings, threadId))) {
    return { code: 'thread_released', text: `The thread was still waiting for the tools of an interrupted message; those calls are now cancelled, so send again.` };
  }
  if (!CONNECTION_CODES.has(error.code)) return explainServerError(error, settings);
  if (!(await serverAnswers(settings.baseUrl))) {
    if (threadId === undefined) return explainNotRunning(settings);
    return {
      code: 'server_stopped',
      text: `Lost ${server} in the middle of the conversation (thread ${threadId}): it has stopped. Start it again with npm run example:browser, then send again.`,
    };
  }
  // The server is up: the check over HTTP says whether it refuses the token or the origin, for the WebSocket too.
  const verdict = await checkConnection(settings);
  if (verdict.state === 'offline') return verdict;
  if (threadId === undefined) return { code: 'connection_failed', text: `${capitalise(server)} answers HTTP, but the connection failed (${error.message}); send again.` };
  // The thread may be left waiting for the tool results that were lost: cancelling those calls lets it take the next message.
  await releaseThread(settings, threadId);
  return { code: 'connection_broken', text: `The connection to ${server} broke in the middle of the conversation (thread ${threadId}); send again to go on.` };
}

/** Stops `threadId` (the remote calls it waits for each get a failed result), so it takes new messages; false when it could not. */
async function releaseThread(settings: Settings, threadId: string): Promise<boolean> {
  const client = createClient(settings);
  try {
    await client.stopGraph(threadId, { signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
    return true;
  } catch {
    return false;
  } finally {
    client.close();
  }
}

let running: AbortController | undefined;

function setBusy(busy: boolean): void {
  ui.send.disabled = busy;
  ui.stop.disabled = !busy;
  ui.newConversation.disabled = busy;
  document.body.dataset.busy = String(busy);
}

/** Sends one message on the conversation's thread, through the remote-tool loop, and shows it as it goes. */
async function converse(prompt: string): Promise<void> {
  const settings = readSettings();
  const turn = new Turn(prompt, settings.transport);
  if (settings.baseUrl === '') {
    turn.fail(NO_SERVER);
    return;
  }
  const controller = new AbortController();
  running = controller;
  setBusy(true);
  let client: TenxGraphClient | undefined;
  try {
    client = createClient(settings, {
      onRun: (name, args, context) => {
        turn.thread(context.thread_id);
        turn.note('running', `This page runs ${describeCall(name, args)}`);
      },
      onMessages: (messages, threadId) => {
        turn.thread(threadId);
        for (const message of messages) turn.message(message);
      },
    });
    const messages = [Message.text_message(prompt)];
    const options = { signal: controller.signal, ...(conversation.threadId ? { config: { thread_id: conversation.threadId } } : {}) };
    if (settings.transport === 'invoke') {
      const result = await client.invoke(messages, options);
      turn.thread(result.thread_id);
      for (const message of result.messages) turn.message(message);
    } else {
      for await (const chunk of client.stream(messages, { ...options, transport: settings.transport })) turn.chunk(chunk);
    }
    turn.finish();
    // A message that went through proves the connection, whatever an older check said.
    if (turn.root.dataset.state === 'done') settleStatus({ state: 'connected', code: 'connected', text: `Connected to ${settings.baseUrl}.` });
  } catch (error) {
    const problem = await explainFailure(error, settings, turn.threadId ?? conversation.threadId);
    turn.fail(problem);
    // One error, shown once: the status line points at the turn rather than repeating its sentence.
    if (OFFLINE_CODES.has(problem.code)) settleStatus({ state: 'offline', code: 'see_conversation', text: 'Not connected: the conversation says why.' });
  } finally {
    client?.close();
    if (turn.threadId !== undefined) conversation.threadId = turn.threadId;
    showThread();
    if (running === controller) running = undefined;
    setBusy(false);
  }
}

/** Counts the checks started: only the newest one may write the status line. */
let checks = 0;

/**
 * Checks the server of the Server field with the token of the Token field, and says in the page
 * whether it answers. Checks overlap (the field's change, the token's, the Check button): an older
 * one that ends later must not overwrite the newer verdict.
 */
async function checkServer(): Promise<void> {
  const check = ++checks;
  const settings = readSettings();
  showStatus({ state: 'checking', code: 'checking', text: `Checking ${settings.baseUrl}…` });
  const verdict = await checkConnection(settings);
  if (check === checks) showStatus(verdict);
}

/** Sets the status line from what a message found, over any check still running. */
function settleStatus(verdict: Verdict): void {
  checks++;
  showStatus(verdict);
}

function showStatus(verdict: Verdict | { state: 'checking'; code: string; text: string }): void {
  ui.serverStatus.dataset.state = verdict.state;
  ui.serverStatus.dataset.code = verdict.code;
  ui.serverStatus.textContent = verdict.text;
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
  ui.prompt.value = '';
  void converse(prompt);
});
document.querySelectorAll<HTMLButtonElement>('button[data-prompt]').forEach((button) => {
  button.addEventListener('click', () => {
    ui.prompt.value = button.dataset.prompt ?? '';
    ui.form.requestSubmit();
  });
});
ui.stop.addEventListener('click', () => running?.abort(new DOMException('Stopped in the page.', 'AbortError')));
ui.newConversation.addEventListener('click', () => {
  if (!running) startConversation();
  ui.prompt.focus();
});
// Enter in a settings field checks the server rather than reloading the page.
element<HTMLFormElement>('settings').addEventListener('submit', (event) => {
  event.preventDefault();
  void checkServer();
});
// A thread lives on one server: another server starts a new conversation.
let checkedUrl = ui.serverUrl.value;
ui.serverUrl.addEventListener('change', () => {
  if (ui.serverUrl.value !== checkedUrl && !running) startConversation();
  checkedUrl = ui.serverUrl.value;
  void checkServer();
});
ui.token.addEventListener('change', () => void checkServer());

// For the console (and the benchmark): the page's own client, with the page's handlers.
(window as unknown as { tenxgraphExample: unknown }).tenxgraphExample = { createClient: () => createClient(), Message };

startConversation();
void showDatabase();
void loadConfig().then(() => {
  checkedUrl = ui.serverUrl.value;
  return checkServer();
});
