/**
 * `ScriptedModel`: a deterministic stand-in for a chat model, for examples, tests and
 * benchmarks. It is not a language model: it follows rules (or a function you give it), so a
 * graph can be run end to end without a model API. Use `OpenAIChatModel` (or your own
 * `ChatModel`) for real conversations.
 *
 * Given `request.onText`, it streams its text as a model would: word by word (each piece ends
 * after its whitespace, so "Hello there" arrives as "Hello " then "there"), yielding to the event
 * loop between pieces so that each reaches the consumer on its own. Tool calls come whole.
 */
import { failureReasonOf, isFailedResult, textOf, type Message, type ToolCallBlock } from '10xgraph-client/wire';
import type { ChatModel, ModelRequest, ModelToolCall, ModelTurn } from './types';

/** One rule: when the user's text matches, call a tool. */
export interface ScriptRule {
  /** A regular expression, a case-insensitive substring, or a test of the user's last text. */
  when: RegExp | string | ((text: string) => boolean);
  /** The tool to call. The rule is skipped when the model is not offered that tool. */
  call: string;
  /** The arguments: an object, or made from the regular expression's match and the text. */
  args?: Record<string, unknown> | ((match: RegExpMatchArray | null, text: string) => Record<string, unknown>);
}

/** The result of one tool call of the current turn, as `answer` sees it. */
export interface ToolOutcome {
  name: string;
  args: unknown;
  output: unknown;
  status: 'completed' | 'failed';
  error?: string;
}

/** How a `ScriptedModel` behaves. */
export interface ScriptedModelOptions {
  /** Checked in order against the user's last text; every matching rule makes one call in the same turn. */
  rules?: ScriptRule[];
  /** The answer when no rule matches. Default: says which tools it can call. */
  reply?: string | ((text: string, request: ModelRequest) => string);
  /** The answer once the turn's tools have answered. Default: lists each tool's result. */
  answer?: (outcomes: ToolOutcome[], text: string) => string;
}

/** A script as a function of the whole request, for full control. */
export type ScriptFunction = (request: ModelRequest) => ModelTurn | Promise<ModelTurn>;

/** A deterministic stand-in for a chat model (see the module comment). */
export class ScriptedModel implements ChatModel {
  readonly name = 'scripted';
  private readonly script: ScriptFunction;

  /** Makes a scripted model from rules or from a function of the request. */
  constructor(script: ScriptFunction | ScriptedModelOptions = {}) {
    this.script = typeof script === 'function' ? script : ruleScript(script);
  }

  /** Answers one turn by the script, streaming its text word by word to `request.onText` when given. */
  async generate(request: ModelRequest): Promise<ModelTurn> {
    const turn = await this.script(request);
    if (request.onText && typeof turn.text === 'string') await streamWords(turn.text, request.onText);
    return turn;
  }
}

/** Passes `text` to `onText` a word at a time, each piece ending after its whitespace. */
async function streamWords(text: string, onText: (delta: string) => void): Promise<void> {
  if (text === '') return;
  for (const [i, piece] of text.split(/(?<=\s)/).entries()) {
    // A macrotask, not a microtask: a consumer writing to a socket gets to flush between pieces.
    if (i > 0) await new Promise((resolve) => setImmediate(resolve));
    onText(piece);
  }
}

/**
 * The rule-based script: on a fresh user message, call every tool whose rule matches (or reply
 * when none does); once the calls of the turn have results, answer with text that includes them.
 */
function ruleScript(options: ScriptedModelOptions): ScriptFunction {
  const rules = options.rules ?? [];
  return (request) => {
    const { messages, tools } = request;
    let lastUser = messages.length - 1;
    while (lastUser >= 0 && messages[lastUser]!.role !== 'user') lastUser--;
    const text = lastUser >= 0 ? textOf(messages[lastUser]) : '';
    const turn = messages.slice(lastUser + 1);
    const outcomes = outcomesOf(turn);
    if (outcomes.length > 0) return { text: (options.answer ?? defaultAnswer)(outcomes, text) };
    const offered = new Set(tools.map((tool) => tool.name));
    const calls: ModelToolCall[] = [];
    for (const rule of rules) {
      if (!offered.has(rule.call)) continue;
      const match = matchRule(rule.when, text);
      if (match === false) continue;
      const args = typeof rule.args === 'function' ? rule.args(match === true ? null : match, text) : (rule.args ?? {});
      calls.push({ name: rule.call, args });
    }
    if (calls.length > 0) return { toolCalls: calls };
    const reply = options.reply ?? defaultReply;
    return { text: typeof reply === 'function' ? reply(text, request) : reply };
  };
}

function matchRule(when: ScriptRule['when'], text: string): RegExpMatchArray | boolean {
  if (typeof when === 'function') return when(text);
  if (typeof when === 'string') return text.toLowerCase().includes(when.toLowerCase());
  return text.match(when) ?? false;
}

function outcomesOf(turn: readonly Message[]): ToolOutcome[] {
  const calls = new Map<string, ToolCallBlock>();
  const outcomes: ToolOutcome[] = [];
  for (const message of turn) {
    for (const block of message.content) {
      if (block.type === 'tool_call') calls.set(block.id, block);
      else if (block.type === 'tool_result') {
        const call = calls.get(block.call_id);
        const failed = isFailedResult(block);
        outcomes.push({
          name: call?.name ?? block.call_id,
          args: call?.args,
          output: block.output,
          status: failed ? 'failed' : 'completed',
          error: failed ? failureReasonOf(block) : undefined,
        });
      }
    }
  }
  return outcomes;
}

function defaultReply(_text: string, request: ModelRequest): string {
  const names = request.tools.map((tool) => tool.name);
  return names.length === 0 ? 'I have no tools to call.' : `I can call these tools: ${names.join(', ')}.`;
}

/** Describes tool outcomes in one line each: the default `answer`. */
export function describeOutcomes(outcomes: readonly ToolOutcome[]): string {
  return outcomes
    .map((outcome) => (outcome.status === 'completed' ? `${outcome.name}: ${formatOutput(outcome.output)}` : `${outcome.name} failed: ${outcome.error ?? 'no reason given'}`))
    .join('\n');
}

function defaultAnswer(outcomes: ToolOutcome[]): string {
  return `Here is what the tools returned:\n${describeOutcomes(outcomes)}`;
}

function formatOutput(output: unknown): string {
  if (typeof output === 'string') return output;
  try {
    return JSON.stringify(output) ?? String(output);
  } catch {
    return String(output);
  }
}
