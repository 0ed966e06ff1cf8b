/**
 * Checks a run request body (`{messages, initial_state?, config?: {thread_id?}, recursion_limit?,
 * response_granularity?}`, the real 10xGraph server's) field by field. Each refusal is a 422
 * `VALIDATION_ERROR` whose message and `details[0].loc` name the field, so a client knows exactly
 * what to change. A client may only say what a client says: `user` (and `system`) messages of
 * text, and `tool` messages of results for pending calls (which the resume rule checks).
 * Assistant messages and tool calls are the graph's to write, so no client can forge the
 * thread's history. Fields of a message the graph does not read (`timestamp`, `metadata`,
 * `usages`, a null `tools_calls`, …) are accepted and dropped.
 */
import {
  DEFAULT_RECURSION_LIMIT,
  isThreadId,
  MAX_RECURSION_LIMIT,
  newMessageId,
  THREAD_ID_RULE,
  isUnassignedMessageId,
  threadIdText,
  type Block,
  type Message,
  type ResponseGranularity,
} from '10xgraph-client/wire';
import { ApiError, validationError } from './errors';

/** A checked run request. */
export interface RunRequest {
  messages: Message[];
  threadId?: string;
  recursionLimit: number;
  granularity: ResponseGranularity;
  /** Values the request sets on the state before the run (`initial_state`). */
  values?: Record<string, unknown>;
}

/** The `config.thread_id` that asks for a new thread, as a blank one does. */
const NEW_THREAD = 'new';

/** State keys a request cannot set through `initial_state`: the graph keeps them. */
const RESERVED_STATE_KEYS = new Set(['messages', 'context', 'context_summary', 'execution_meta']);

/**
 * Checks `body` and returns the request, or throws a 422 naming the field. `messagesField` is
 * where the messages are (`tool_result` in a WebSocket `resume` frame).
 */
export function parseRunRequest(body: unknown, messagesField = 'messages'): RunRequest {
  if (!isObject(body)) throw invalid(`The request body must be a JSON object with a '${messagesField}' list; got ${describe(body)}.`, []);
  const messages = body[messagesField];
  if (!Array.isArray(messages)) throw invalid(`Field '${messagesField}' must be a list of messages; got ${describe(messages)}.`, [messagesField]);
  if (messages.length === 0) throw invalid(`Field '${messagesField}' must hold at least one message.`, [messagesField]);
  const checked = messages.map((message, i) => parseMessage(message, [messagesField, i]));
  const request: RunRequest = { messages: checked, recursionLimit: DEFAULT_RECURSION_LIMIT, granularity: 'low' };
  const config = body.config;
  if (config !== undefined && config !== null) {
    if (!isObject(config)) throw invalid(`Field 'config' must be an object like {"thread_id": "..."}; got ${describe(config)}.`, ['config']);
    const id = threadIdText(config.thread_id);
    // A blank id, "new" (or none) asks for a new thread, as on the Python server.
    if (id !== undefined && id !== null && id !== '' && id !== NEW_THREAD) request.threadId = checkThreadId(id, "Field 'config.thread_id'", ['config', 'thread_id']);
  }
  const limit = body.recursion_limit;
  if (limit !== undefined && limit !== null) {
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_RECURSION_LIMIT) {
      throw invalid(`Field 'recursion_limit' must be a whole number from 1 to ${MAX_RECURSION_LIMIT}; got ${describe(limit)}.`, ['recursion_limit']);
    }
    request.recursionLimit = limit;
  }
  const granularity = body.response_granularity;
  if (granularity !== undefined && granularity !== null) {
    if (granularity !== 'low' && granularity !== 'partial' && granularity !== 'full') {
      throw invalid(`Field 'response_granularity' must be "low", "partial" or "full"; got ${describe(granularity)}.`, ['response_granularity']);
    }
    request.granularity = granularity;
  }
  const initial = body.initial_state;
  if (initial !== undefined && initial !== null) {
    if (!isObject(initial)) throw invalid(`Field 'initial_state' must be an object of state values; got ${describe(initial)}.`, ['initial_state']);
    for (const key of Object.keys(initial)) {
      if (RESERVED_STATE_KEYS.has(key)) {
        throw invalid(`Field 'initial_state.${key}' cannot be set: the graph keeps '${key}' itself; send messages in 'messages' and other values under their own keys.`, [
          'initial_state',
          key,
        ]);
      }
    }
    request.values = checkDepth(initial, ['initial_state']) as Record<string, unknown>;
  }
  return request;
}

/** Checks one message a client sends (a run's, or `POST /v1/threads/{id}/messages`'), its id assigned when it has none. */
export function parseMessage(value: unknown, loc: Array<string | number>): Message {
  const path = pathOf(loc);
  if (!isObject(value)) throw invalid(`Field '${path}' must be a message object {"role", "content"}; got ${describe(value)}.`, loc);
  const role = value.role;
  if (role === 'assistant') {
    throw invalid(
      `Field '${path}.role' is "assistant": assistant messages come from the graph, and a client may send only "user" (or "system") messages and "tool" results for pending calls.`,
      [...loc, 'role'],
    );
  }
  if (role !== 'user' && role !== 'tool' && role !== 'system') throw invalid(`Field '${path}.role' must be "user", "system" or "tool"; got ${describe(role)}.`, [...loc, 'role']);
  if (Array.isArray(value.tools_calls) && value.tools_calls.length > 0) {
    throw invalid(`Field '${path}.tools_calls' carries a tool call; only the model may request tools.`, [...loc, 'tools_calls']);
  }
  let content: Block[];
  if (typeof value.content === 'string') content = [{ type: 'text', text: value.content }];
  else if (Array.isArray(value.content)) content = value.content.map((block, i) => parseBlock(block, [...loc, 'content', i]));
  else throw invalid(`Field '${path}.content' must be a list of blocks; got ${describe(value.content)}.`, [...loc, 'content']);
  content.forEach((block, i) => {
    const allowed = role === 'tool' ? block.type === 'tool_result' : block.type === 'text';
    if (!allowed) {
      throw invalid(
        role === 'tool'
          ? `Field '${path}.content[${i}].type' is "${block.type}": a tool message holds only "tool_result" blocks answering pending calls.`
          : `Field '${path}.content[${i}].type' is "${block.type}": a ${role} message holds only "text" blocks (tool calls come from the model).`,
        [...loc, 'content', i, 'type'],
      );
    }
  });
  // Stamped on arrival, so the run, the store and the answer's echo all carry the same time.
  return { message_id: messageIdOf(value.message_id, [...loc, 'message_id']), role, content, timestamp: Date.now() / 1000 };
}

/** The id a message keeps: the client's, or a new one when it sent none, an empty one or "0". */
function messageIdOf(id: unknown, loc: Array<string | number>): string {
  if (isUnassignedMessageId(id)) return newMessageId();
  if (typeof id === 'number' && Number.isSafeInteger(id)) return String(id);
  if (typeof id !== 'string' || id.length > 256) throw invalid(`Field '${pathOf(loc)}' must be a string of at most 256 characters; got ${describe(id)}.`, loc);
  return id;
}

function parseBlock(value: unknown, loc: Array<string | number>): Block {
  const path = pathOf(loc);
  if (!isObject(value)) throw invalid(`Field '${path}' must be a block object with a 'type'; got ${describe(value)}.`, loc);
  const requireString = (name: string, nonEmpty: boolean): string => {
    const v = value[name];
    if (typeof v !== 'string' || (nonEmpty && v === ''))
      throw invalid(`Field '${path}.${name}' must be a ${nonEmpty ? 'non-empty ' : ''}string; got ${describe(v)}.`, [...loc, name]);
    return v;
  };
  switch (value.type) {
    case 'text':
      return { type: 'text', text: requireString('text', false) };
    case 'tool_call':
    case 'remote_tool_call':
      throw invalid(`Field '${path}.type' is "${value.type}": a message of a client carries no tool call; only the model may request tools.`, [...loc, 'type']);
    case 'tool_result': {
      const callId = requireString('call_id', true);
      const status = value.status;
      if (status !== undefined && status !== null && status !== 'completed' && status !== 'failed') {
        throw invalid(`Field '${path}.status' must be "completed" or "failed"; got ${describe(status)}.`, [...loc, 'status']);
      }
      const isError = value.is_error;
      if (isError !== undefined && isError !== null && typeof isError !== 'boolean')
        throw invalid(`Field '${path}.is_error' must be true or false; got ${describe(isError)}.`, [...loc, 'is_error']);
      const legacy = value.error;
      if (legacy !== undefined && legacy !== null && typeof legacy !== 'string')
        throw invalid(`Field '${path}.error' must be a string; got ${describe(legacy)}.`, [...loc, 'error']);
      const failed = isError === true || status === 'failed' || typeof legacy === 'string';
      let output = checkDepth(value.output ?? null, [...loc, 'output']);
      // The older form kept the reason beside the output: it moves into `output.error`, where the model reads it.
      if (failed && typeof legacy === 'string' && !(isObject(output) && typeof output.error === 'string')) output = { error: legacy };
      return { type: 'tool_result', call_id: callId, output, is_error: failed, status: failed ? 'failed' : 'completed' };
    }
    default:
      throw invalid(`Field '${path}.type' must be "text" or "tool_result"; got ${describe(value.type)}.`, [...loc, 'type']);
  }
}

/** Values nested deeper than this are refused: the store and the model's request serialise them recursively. */
const MAX_VALUE_DEPTH = 256;

/** Returns `value` when it nests at most MAX_VALUE_DEPTH levels; otherwise a 422 naming `loc`. */
export function checkDepth(value: unknown, loc: Array<string | number>): unknown {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > MAX_VALUE_DEPTH) throw invalid(`Field '${pathOf(loc)}' nests deeper than ${MAX_VALUE_DEPTH} levels; send flatter data.`, loc);
    const next: unknown[] = [];
    for (const item of level) {
      if (typeof item === 'object' && item !== null) for (const child of Object.values(item)) if (typeof child === 'object' && child !== null) next.push(child);
    }
    level = next;
  }
  return value;
}

/**
 * Returns `value` when it is a thread id (docs/spec.md §4), or throws the 422 naming where it was
 * (`subject`, such as "Field 'config.thread_id'"): the same refusal for a request body, a
 * WebSocket frame and a route's path.
 */
export function checkThreadId(value: unknown, subject: string, loc: Array<string | number> = [], inBody = true): string {
  if (isThreadId(value)) return value;
  const length = typeof value === 'string' && value.length > 40 ? ` (${value.length} characters)` : '';
  const message = `${subject} must be a thread id: ${THREAD_ID_RULE}; got ${describe(value)}${length}.`;
  throw inBody ? invalid(message, loc) : validationError(message, loc);
}

/** The 422 of a body field at `loc` (under `body`). */
export function invalid(message: string, loc: Array<string | number>): ApiError {
  return validationError(message, ['body', ...loc]);
}

/** `['messages', 0, 'role']` as people read it: `messages[0].role`. */
function pathOf(loc: ReadonlyArray<string | number>): string {
  return loc.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}

/** Whether a value is a JSON object (not null, not a list). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value as a refusal shows it. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return value.length > 40 ? `a string` : JSON.stringify(value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
