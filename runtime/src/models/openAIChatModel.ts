/**
 * `OpenAIChatModel`: a chat model behind any OpenAI-compatible chat-completions API (OpenAI,
 * Azure-style proxies, vLLM, Ollama, LM Studio, ...), with tool calling.
 */
import { failureReasonOf, isFailedResult, type Message } from '10xgraph-client/wire';
import { ModelError, type ChatModel, type ModelRequest, type ModelToolCall, type ModelTurn } from './types';

/** How to reach the API. Unset options come from the environment. */
export interface OpenAIChatModelOptions {
  /** Default `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. */
  baseURL?: string;
  /** Default `OPENAI_MODEL`, else `gpt-4o-mini`. */
  model?: string;
  /** Default `OPENAI_API_KEY`. Sent only when set (local servers often need none). */
  apiKey?: string;
  /** A system message put before the conversation. */
  systemPrompt?: string;
  temperature?: number;
  /** Time-out of one request (default 60 s). */
  timeoutMs?: number;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
  /** The environment to read (default `process.env`). */
  env?: Record<string, string | undefined>;
}

/** One message of the chat-completions wire format. */
export type ChatCompletionMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> }
  | { role: 'tool'; tool_call_id: string; content: string };

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
const DEFAULT_MODEL = 'gpt-4o-mini';

/** A chat model behind an OpenAI-compatible `/chat/completions` endpoint. */
export class OpenAIChatModel implements ChatModel {
  readonly name: string;
  readonly baseURL: string;
  readonly model: string;
  private readonly apiKey: string | undefined;
  private readonly options: OpenAIChatModelOptions;

  /** Makes a model; options not given are read from OPENAI_BASE_URL, OPENAI_MODEL and OPENAI_API_KEY. */
  constructor(options: OpenAIChatModelOptions = {}) {
    const env = options.env ?? (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
    this.options = options;
    this.baseURL = (options.baseURL ?? env.OPENAI_BASE_URL ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.model = options.model ?? env.OPENAI_MODEL ?? DEFAULT_MODEL;
    this.apiKey = options.apiKey ?? env.OPENAI_API_KEY;
    this.name = `openai:${this.model}`;
  }

  /**
   * Sends the conversation and the tools to `/chat/completions` and reads the first choice. With
   * `request.onText` it asks for a stream (`stream: true`) and passes the text on as it arrives.
   */
  async generate(request: ModelRequest): Promise<ModelTurn> {
    const url = `${this.baseURL}/chat/completions`;
    const body: Record<string, unknown> = { model: this.model, messages: toChatCompletionMessages(request.messages, this.options.systemPrompt) };
    if (request.tools.length > 0) {
      body.tools = request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
      body.tool_choice = 'auto';
    }
    if (this.options.temperature !== undefined) body.temperature = this.options.temperature;
    const { onText } = request;
    if (onText) body.stream = true;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: onText ? 'text/event-stream' : 'application/json' };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const timeoutMs = this.options.timeoutMs ?? 60_000;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(url, { method: 'POST', headers, body: JSON.stringify(body), signal });
    } catch (error) {
      const reason = timeout.aborted ? `no answer within ${timeoutMs} ms` : error instanceof Error ? error.message : String(error);
      throw new ModelError(`Cannot reach the chat-completions API at ${url}: ${reason}; check OPENAI_BASE_URL and that the server runs.`);
    }
    if (onText && response.ok && response.body && (response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      const explain = (error: unknown) => (timeout.aborted ? `no answer within ${timeoutMs} ms` : request.signal?.aborted ? 'the request was aborted' : describeError(error));
      return readChatCompletionStream(response.body, url, onText, explain);
    }
    const text = await response.text();
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      payload = undefined;
    }
    if (!response.ok) {
      const detail = (payload as { error?: { message?: unknown } } | undefined)?.error?.message;
      throw new ModelError(`The chat-completions API at ${url} answered ${response.status}: ${typeof detail === 'string' ? detail : text.slice(0, 200)}`, response.status);
    }
    const turn = parseChatCompletion(payload, url);
    // A server that ignores `stream: true` answers the whole turn at once: its text is one piece.
    if (onText && turn.text) onText(turn.text);
    return turn;
  }
}

/**
 * Turns a thread into chat-completions messages. `remote_tool_call` blocks are left out (the
 * assistant's `tool_call` already says it), and tool calls without a result (a run cut short) are
 * dropped with their orphans, because the API refuses a conversation with unanswered calls.
 */
export function toChatCompletionMessages(messages: readonly Message[], systemPrompt?: string): ChatCompletionMessage[] {
  const answered = new Set<string>();
  for (const message of messages) for (const block of message.content) if (block.type === 'tool_result') answered.add(block.call_id);
  const called = new Set<string>();
  const out: ChatCompletionMessage[] = [];
  if (systemPrompt) out.push({ role: 'system', content: systemPrompt });
  for (const message of messages) {
    const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    if (message.role === 'assistant') {
      const calls = message.content.flatMap((block) =>
        block.type === 'tool_call' && answered.has(block.id)
          ? [{ id: block.id, type: 'function' as const, function: { name: block.name, arguments: JSON.stringify(block.args ?? {}) } }]
          : [],
      );
      for (const call of calls) called.add(call.id);
      if (calls.length > 0) out.push({ role: 'assistant', content: text === '' ? null : text, tool_calls: calls });
      else if (text !== '') out.push({ role: 'assistant', content: text });
      continue;
    }
    for (const block of message.content) {
      if (block.type === 'tool_result' && called.has(block.call_id)) {
        out.push({ role: 'tool', tool_call_id: block.call_id, content: isFailedResult(block) ? `Error: ${failureReasonOf(block)}` : stringify(block.output) });
      }
    }
    if ((message.role === 'user' || message.role === 'system') && text !== '') out.push({ role: message.role, content: text });
  }
  return out;
}

function parseChatCompletion(payload: unknown, url: string): ModelTurn {
  const message = (payload as { choices?: Array<{ message?: unknown }> } | undefined)?.choices?.[0]?.message as
    { content?: unknown; tool_calls?: Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } }> } | undefined;
  if (!message || typeof message !== 'object') throw new ModelError(`The chat-completions API at ${url} answered without choices[0].message; is it OpenAI-compatible?`);
  const toolCalls: ModelToolCall[] = [];
  for (const call of message.tool_calls ?? []) {
    const name = call.function?.name;
    if (typeof name !== 'string') continue;
    toolCalls.push({ id: typeof call.id === 'string' ? call.id : undefined, name, args: parseArguments(call.function?.arguments) });
  }
  return { text: typeof message.content === 'string' ? message.content : undefined, toolCalls };
}

/** Reads a tool call's `arguments`: JSON text, or (from lax servers) an object; none is `{}`. */
function parseArguments(raw: unknown): unknown {
  if (typeof raw === 'string' && raw.trim() !== '') {
    try {
      return JSON.parse(raw);
    } catch {
      // Kept as text: the ToolNode answers it with a failed result the model can read and retry.
      return raw;
    }
  }
  return raw && typeof raw === 'object' ? raw : {};
}

/** The longest line, or event, of a stream that is buffered, in characters (UTF-16 units): 1 Mi. */
const MAX_STREAM_LINE = 1 << 20;
/** How long the body may take to end after `data: [DONE]` before it is cancelled. */
const END_OF_BODY_MS = 1_000;

/** One chunk of a chat-completions stream, as far as it is read. */
interface ChatCompletionChunk {
  choices?: Array<{
    index?: unknown;
    delta?: { content?: unknown; tool_calls?: Array<{ index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } }> };
    finish_reason?: unknown;
  }>;
  error?: unknown;
  object?: unknown;
  message?: unknown;
}

/** A tool call being put together from its pieces. */
interface ToolCallPieces {
  id?: string;
  name?: string;
  arguments: string;
}

/**
 * Reads a chat-completions server-sent-events stream (`data: {chunk}` events, then
 * `data: [DONE]`). Text deltas of the first choice go to `onText` as they arrive; tool-call
 * deltas are joined by their `index`, the id and name taken from the first piece that has them,
 * the arguments concatenated and parsed at the end. `explain` says why a read failed.
 */
async function readChatCompletionStream(body: ReadableStream<Uint8Array>, url: string, onText: (delta: string) => void, explain: (error: unknown) => string): Promise<ModelTurn> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const text: string[] = [];
  const calls = new Map<number, ToolCallPieces>();
  let data: string[] | undefined;
  let dataLength = 0;
  let finished = false;
  let done = false;

  const fail = (what: string) => new ModelError(`The chat-completions stream from ${url} ${what}`);
  const dispatch = () => {
    if (data === undefined) return;
    const event = data.join('\n');
    data = undefined;
    dataLength = 0;
    if (event === '[DONE]') {
      done = true;
      return;
    }
    let chunk: ChatCompletionChunk;
    try {
      chunk = JSON.parse(event) as ChatCompletionChunk;
    } catch {
      throw fail(`sent a data line that is not JSON (${preview(event)}); is the API OpenAI-compatible?`);
    }
    if (typeof chunk !== 'object' || chunk === null) throw fail(`sent a chunk that is not a JSON object (${preview(event)}); is the API OpenAI-compatible?`);
    if (chunk.error !== undefined || chunk.object === 'error') {
      const error = chunk.error ?? chunk;
      const detail = typeof error === 'string' ? error : (error as { message?: unknown }).message;
      throw fail(`reported an error mid-answer: ${typeof detail === 'string' ? detail : preview(JSON.stringify(error))}`);
    }
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      if (typeof choice !== 'object' || choice === null || (choice.index ?? 0) !== 0) continue;
      const delta = choice.delta;
      if (typeof delta?.content === 'string' && delta.content !== '') {
        text.push(delta.content);
        onText(delta.content);
      }
      for (const piece of Array.isArray(delta?.tool_calls) ? delta.tool_calls : []) addToolCallPiece(calls, piece);
      if (typeof choice.finish_reason === 'string') finished = true;
    }
  };
  const readLine = (line: string) => {
    if (line === '') return dispatch();
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    if ((colon === -1 ? line : line.slice(0, colon)) !== 'data') return;
    const value = colon === -1 ? '' : line.slice(line[colon + 1] === ' ' ? colon + 2 : colon + 1);
    dataLength += value.length + 1;
    if (dataLength > MAX_STREAM_LINE) throw fail(`sent an event longer than ${MAX_STREAM_LINE} characters; is the API OpenAI-compatible?`);
    (data ??= []).push(value);
  };

  let buffered = '';
  let ended = false;
  try {
    while (!done) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw fail(`ended early, before \`data: [DONE]\` (${explain(error)}); the answer is incomplete, try again.`);
      }
      ended = chunk.done;
      buffered += chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      // Lines end with CRLF, LF or CR; a CR last in the buffer may be half of a CRLF still to come.
      const lineEnd = /\r\n|\r|\n/g;
      let start = 0;
      for (let match = lineEnd.exec(buffered); match && !done; match = lineEnd.exec(buffered)) {
        if (match[0] === '\r' && match.index === buffered.length - 1 && !ended) break;
        if (match.index - start > MAX_STREAM_LINE) throw fail(`sent a line longer than ${MAX_STREAM_LINE} characters; is the API OpenAI-compatible?`);
        readLine(buffered.slice(start, match.index));
        start = lineEnd.lastIndex;
      }
      buffered = buffered.slice(start);
      if (buffered.length > MAX_STREAM_LINE) throw fail(`sent a line longer than ${MAX_STREAM_LINE} characters; is the API OpenAI-compatible?`);
      if (ended) break;
    }
    if (!done) {
      // The last event may lack its blank line (or even its line end) when the body ends.
      if (buffered !== '') readLine(buffered);
      dispatch();
    }
    // Some servers end the stream after the last chunk's finish_reason without `[DONE]`.
    if (!done && !finished) throw fail('ended early, without `data: [DONE]`; the answer is incomplete, try again.');
    if (!ended) ended = await readToEnd(reader, END_OF_BODY_MS);
  } finally {
    // Stopped early (an error, or a body that does not end after `[DONE]`): release the connection.
    if (!ended) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
  const toolCalls: ModelToolCall[] = [];
  for (const [, call] of [...calls].sort(([a], [b]) => a - b)) {
    if (call.name !== undefined) toolCalls.push({ id: call.id, name: call.name, args: parseArguments(call.arguments) });
  }
  return { text: text.length > 0 ? text.join('') : undefined, toolCalls };
}

/**
 * Adds one `tool_calls` delta to the call of its `index`. A piece without an index (lax servers)
 * starts a new call when it brings an id not seen yet, else continues the last call.
 */
function addToolCallPiece(calls: Map<number, ToolCallPieces>, piece: { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } }): void {
  if (typeof piece !== 'object' || piece === null) return;
  let index: number;
  if (typeof piece.index === 'number') index = piece.index;
  else {
    const last = Math.max(-1, ...calls.keys());
    const isNew = last === -1 || (typeof piece.id === 'string' && piece.id !== '' && ![...calls.values()].some((call) => call.id === piece.id));
    index = isNew ? last + 1 : last;
  }
  let call = calls.get(index);
  if (!call) calls.set(index, (call = { arguments: '' }));
  if (call.id === undefined && typeof piece.id === 'string' && piece.id !== '') call.id = piece.id;
  const name = piece.function?.name;
  if (call.name === undefined && typeof name === 'string' && name !== '') call.name = name;
  const args = piece.function?.arguments;
  if (typeof args === 'string') call.arguments += args;
  else if (args && typeof args === 'object') call.arguments += JSON.stringify(args);
}

/** Reads and drops what is left of a body; true when it ended within `ms`. */
async function readToEnd(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const drained = (async () => {
    for (;;) if ((await reader.read()).done) return true;
  })().catch(() => false);
  try {
    return await Promise.race([drained, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Says what went wrong in an error, with its cause (fetch's "terminated" names the socket's fault there). */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error && cause.message !== error.message ? `${error.message}: ${cause.message}` : error.message;
}

/** Shortens a text for an error message. */
function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat;
}

function stringify(output: unknown): string {
  if (typeof output === 'string') return output;
  return JSON.stringify(output ?? null);
}
