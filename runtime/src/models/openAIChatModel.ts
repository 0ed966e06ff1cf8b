/**
 * `OpenAIChatModel`: a chat model behind any OpenAI-compatible chat-completions API (OpenAI,
 * Azure-style proxies, vLLM, Ollama, LM Studio, ...), with tool calling.
 */
import type { Message } from '10xgraph-client/wire';
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

  /** Sends the conversation and the tools to `/chat/completions` and reads the first choice. */
  async generate(request: ModelRequest): Promise<ModelTurn> {
    const url = `${this.baseURL}/chat/completions`;
    const body: Record<string, unknown> = { model: this.model, messages: toChatCompletionMessages(request.messages, this.options.systemPrompt) };
    if (request.tools.length > 0) {
      body.tools = request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
      body.tool_choice = 'auto';
    }
    if (this.options.temperature !== undefined) body.temperature = this.options.temperature;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 60_000);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(url, { method: 'POST', headers, body: JSON.stringify(body), signal });
    } catch (error) {
      const reason = timeout.aborted ? `no answer within ${this.options.timeoutMs ?? 60_000} ms` : error instanceof Error ? error.message : String(error);
      throw new ModelError(`Cannot reach the chat-completions API at ${url}: ${reason}; check OPENAI_BASE_URL and that the server runs.`);
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
    return parseChatCompletion(payload, url);
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
        out.push({ role: 'tool', tool_call_id: block.call_id, content: block.status === 'failed' ? `Error: ${block.error ?? 'the tool failed'}` : stringify(block.output) });
      }
    }
    if (message.role === 'user' && text !== '') out.push({ role: 'user', content: text });
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
    const raw = call.function?.arguments;
    let args: unknown = {};
    if (typeof raw === 'string' && raw.trim() !== '') {
      try {
        args = JSON.parse(raw);
      } catch {
        // Kept as text: the ToolNode answers it with a failed result the model can read and retry.
        args = raw;
      }
    } else if (raw && typeof raw === 'object') {
      args = raw;
    }
    toolCalls.push({ id: typeof call.id === 'string' ? call.id : undefined, name, args });
  }
  return { text: typeof message.content === 'string' ? message.content : undefined, toolCalls };
}

function stringify(output: unknown): string {
  if (typeof output === 'string') return output;
  return JSON.stringify(output ?? null);
}
