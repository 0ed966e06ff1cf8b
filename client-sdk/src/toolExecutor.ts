import { completedResult, failedResult, type RemoteToolCall, type ToolResultBlock } from './wire';

/** What a handler learns about the call besides its arguments. */
export interface ToolCallContext {
  /** The call's id, as the `tool_result` will carry it back. */
  id: string;
  name: string;
  /** The ToolNode that carries the tool. */
  node: string;
  /** The thread the call belongs to, when known. */
  thread_id?: string;
  /** Aborted when the handler times out or the caller gives up: a long handler should stop then. */
  signal: AbortSignal;
}

/**
 * The arguments of a tool whose schema the client does not know: any JSON object. Its values are
 * `any`, not `unknown`, so that handlers written without generated types (`args.timeout_ms ||
 * 10000` passed to `setTimeout`) type-check under `strict`; `10xgraph types` gives exact ones.
 */
export type AnyToolArgs = Record<string, any>;

/**
 * A remote tool's implementation: takes the model's arguments and returns any JSON-serialisable
 * value (sync or async). Throwing reports a failed result to the model; the loop goes on.
 */
export type ToolHandler<Args = AnyToolArgs> = (args: Args, context: ToolCallContext) => unknown;

/** Per-handler options. */
export interface ToolHandlerOptions {
  /** Fail the call when the handler has not settled after this many milliseconds. */
  timeoutMs?: number;
}

/** Options of a `ToolExecutor`. */
export interface ToolExecutorOptions {
  /** The default time-out of every handler, in milliseconds (none when absent). */
  timeoutMs?: number;
}

/** Where `execute` runs: the thread, and a signal to stop handlers early. */
export interface ExecuteContext {
  thread_id?: string;
  signal?: AbortSignal;
}

interface Registered {
  handler: ToolHandler;
  timeoutMs?: number;
}

const TIMED_OUT = Symbol('timed out');
const CANCELLED = Symbol('cancelled');

/**
 * Runs remote tool calls with the handlers registered for them and turns every outcome into a
 * `tool_result` block. It never throws: a missing handler, a throw, a time-out or an output
 * that cannot travel as JSON all become failed results that the model reads and can recover from.
 */
export class ToolExecutor {
  private readonly handlers = new Map<string, Registered>();
  private readonly timeoutMs?: number;

  constructor(options: ToolExecutorOptions = {}) {
    if (options.timeoutMs !== undefined) this.timeoutMs = checkTimeout(options.timeoutMs, 'timeoutMs');
  }

  /** Registers (or replaces) the handler of tool `name`. */
  register(name: string, handler: ToolHandler, options: ToolHandlerOptions = {}): void {
    if (typeof name !== 'string' || name.trim() === '') {
      throw new TypeError('A tool handler needs a non-blank tool name: pass the `name` of a remote tool from 10xgraph.json.');
    }
    if (typeof handler !== 'function') {
      throw new TypeError(`The handler of tool '${name}' is not a function: pass (args, context) => result.`);
    }
    const entry: Registered = { handler };
    if (options.timeoutMs !== undefined) entry.timeoutMs = checkTimeout(options.timeoutMs, `timeoutMs of tool '${name}'`);
    this.handlers.set(name, entry);
  }

  /** Removes the handler of `name`; true when there was one. */
  unregister(name: string): boolean {
    return this.handlers.delete(name);
  }

  /** Whether a handler is registered for `name`. */
  has(name: string): boolean {
    return this.handlers.has(name);
  }

  /** The names of the registered tools. */
  names(): string[] {
    return [...this.handlers.keys()];
  }

  /** Runs one call and resolves to its result block; never rejects. */
  async execute(call: RemoteToolCall, context: ExecuteContext = {}): Promise<ToolResultBlock> {
    const entry = this.handlers.get(call.name);
    if (!entry) return failed(call.id, `Tool '${call.name}' not found`);

    const timeoutMs = entry.timeoutMs ?? this.timeoutMs;
    const controller = new AbortController();
    const outer = context.signal;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stop: (why: typeof TIMED_OUT | typeof CANCELLED) => void = () => undefined;
    // Settles when the handler must be given up on: its time-out, or the caller's abort.
    const giveUp = new Promise<typeof TIMED_OUT | typeof CANCELLED>((resolve) => (stop = resolve));
    const onAbort = () => stop(CANCELLED);
    try {
      if (outer?.aborted) return failed(call.id, `Tool '${call.name}' was cancelled before it ran`);
      outer?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) timer = setTimeout(() => stop(TIMED_OUT), timeoutMs);
      const handlerContext: ToolCallContext = { id: call.id, name: call.name, node: call.node, signal: controller.signal };
      if (context.thread_id !== undefined) handlerContext.thread_id = context.thread_id;
      // Through a promise, so a handler that throws synchronously is caught like one that rejects.
      const run = Promise.resolve().then(() => entry.handler(isRecord(call.args) ? call.args : {}, handlerContext));
      // The handler may still settle after being given up on; nobody waits for it any more.
      run.catch(() => undefined);
      const value = await Promise.race([run, giveUp]);
      if (value === TIMED_OUT) {
        const message = `Tool '${call.name}' timed out after ${timeoutMs} ms`;
        controller.abort(new Error(message));
        return failed(call.id, message);
      }
      if (value === CANCELLED) {
        controller.abort(outer?.reason);
        return failed(call.id, `Tool '${call.name}' was cancelled: ${describeThrown(outer?.reason, call.name)}`);
      }
      const json = toJsonValue(value);
      if (!json.ok) {
        return failed(
          call.id,
          `Tool '${call.name}' returned a result that is not JSON-serialisable (${json.reason}); return plain data: objects, arrays, strings, numbers, booleans or null.`,
        );
      }
      return completedResult(call.id, json.value);
    } catch (error) {
      return failed(call.id, describeThrown(error, call.name));
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    }
  }

  /** Runs every call concurrently; the results come back in the order of the calls. */
  executeAll(calls: RemoteToolCall[], context: ExecuteContext = {}): Promise<ToolResultBlock[]> {
    return Promise.all(calls.map((call) => this.execute(call, context)));
  }
}

function failed(callId: string, reason: string): ToolResultBlock {
  return failedResult(callId, reason);
}

function checkTimeout(value: number, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${what} must be a positive number of milliseconds, not ${String(value)}.`);
  }
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Turns whatever a handler threw into a sentence: an Error's message as it is (so the model
 * reads the handler's own words), anything else described rather than shown as `[object Object]`.
 */
export function describeThrown(thrown: unknown, toolName: string): string {
  try {
    return describeThrownValue(thrown, toolName);
  } catch {
    // A thrown Proxy or an object whose getters throw: describe it without touching it again.
    return `Tool '${toolName}' threw a value that cannot be read`;
  }
}

function describeThrownValue(thrown: unknown, toolName: string): string {
  if (typeof thrown === 'string') return thrown.trim() !== '' ? thrown : `Tool '${toolName}' threw an empty string`;
  if (typeof thrown === 'object' && thrown !== null) {
    const message = (thrown as { message?: unknown }).message;
    if (typeof message === 'string' && message.trim() !== '') return message;
    if (thrown instanceof Error) return `Tool '${toolName}' threw ${thrown.name || 'Error'} without a message`;
    let shown: string | undefined;
    try {
      shown = JSON.stringify(thrown);
    } catch {
      shown = undefined;
    }
    if (shown === undefined || shown === '{}') shown = Object.prototype.toString.call(thrown);
    return `Tool '${toolName}' threw a non-Error value: ${shown}`;
  }
  if (thrown === undefined || thrown === null) return `Tool '${toolName}' threw ${String(thrown)} instead of an Error`;
  return `Tool '${toolName}' threw a non-Error value: ${String(thrown)}`;
}

/**
 * Checks that a handler's output can travel as JSON, and returns exactly what will travel.
 * Plain `JSON.stringify` would silently drop functions and turn NaN into null; a result that
 * changes on the way is reported instead. `undefined` (a handler that returns nothing) is null.
 */
export function toJsonValue(value: unknown): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (value === undefined) return { ok: true, value: null };
  // Plain data (what handlers return almost always) is copied as it is checked, with no text
  // made and read back; anything else takes the exact route below.
  let plain: unknown = NOT_PLAIN;
  try {
    plain = copyPlain(value, 0);
  } catch {
    // A getter or proxy that throws: the route below reports it.
  }
  if (plain !== NOT_PLAIN) return { ok: true, value: plain };
  let problem: string | undefined;
  let text: string | undefined;
  try {
    text = JSON.stringify(value, function (key: string, item: unknown) {
      if (problem !== undefined) return undefined;
      const where = key === '' ? 'the result' : `property '${key}'`;
      const kind = typeof item;
      if (kind === 'function' || kind === 'symbol' || kind === 'bigint') {
        problem = `${where} is a ${kind}`;
        return undefined;
      }
      if (kind === 'number' && !Number.isFinite(item as number)) {
        problem = `${where} is ${String(item)}`;
        return undefined;
      }
      return item;
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: /circular/i.test(message) ? 'it contains a circular reference' : message.split('\n')[0] };
  }
  if (problem !== undefined) return { ok: false, reason: problem };
  if (text === undefined) return { ok: false, reason: 'the result has no JSON form' };
  return { ok: true, value: JSON.parse(text) };
}

/** What `copyPlain` returns for a value it leaves to `JSON.stringify`. */
const NOT_PLAIN = Symbol('not plain');

/** Nesting beyond this leaves a value to `JSON.stringify` (which reports a cycle as one). */
const PLAIN_DEPTH = 64;

/**
 * A copy of `value` equal to `JSON.parse(JSON.stringify(value))` when it is made only of null,
 * booleans, strings, finite numbers, arrays and objects whose prototype is Object's (or null)
 * without `toJSON`, holding no undefined; otherwise `NOT_PLAIN`, and nothing is decided here.
 */
function copyPlain(value: unknown, depth: number): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  // -0 travels as 0.
  if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : NOT_PLAIN;
  if (typeof value !== 'object' || depth >= PLAIN_DEPTH) return NOT_PLAIN;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return NOT_PLAIN;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = copyPlain(value[i], depth + 1);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      out[i] = item;
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // An own `__proto__` would set the copy's prototype: left to JSON.parse, which makes it a property.
    if (key === '__proto__') return NOT_PLAIN;
    const item = copyPlain((value as Record<string, unknown>)[key], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    out[key] = item;
  }
  return out;
}
