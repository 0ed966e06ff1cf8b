/**
 * Reads docs/rules.md into its rule sections and their examples, so that tests can run every
 * example through the rule set and the JSON Schema. A rule section is a `## <code>` heading;
 * an example is a ```json block right after a line `Wrong…:` or `Fixed…:`; a quick fix is a
 * list line "- `TITLE` — flags".
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigFiles, Graph, GraphTool } from '../../runtime/src/rules/index';
import { pythonStrip } from '../../runtime/src/rules/python';

export const RULES_DOC_PATH = join(__dirname, '..', '..', 'docs', 'rules.md');

/** One JSON example of a rule section. */
export interface DocExample {
  kind: 'wrong' | 'fixed';
  /** The marker line, e.g. `Wrong (a comment):`. */
  label: string;
  text: string;
  /** One-based line of the example's first line in docs/rules.md. */
  line: number;
}

/** A quick-fix list line of a rule section. */
export interface DocFix {
  title: string;
  /** What follows the title: `preferred`, `safe`, or nothing. */
  flags: string;
}

/** One `## heading` of docs/rules.md with what it holds. */
export interface DocSection {
  heading: string;
  /** One-based line of the heading. */
  line: number;
  /** The section's lines, heading excluded. */
  body: string[];
  examples: DocExample[];
  fixes: DocFix[];
}

/** Splits `markdown` into its `## ` sections (headings inside code blocks do not count). */
export function readDocSections(markdown = readFileSync(RULES_DOC_PATH, 'utf8')): DocSection[] {
  const lines = markdown.split(/\r?\n/);
  const sections: DocSection[] = [];
  let current: DocSection | undefined;
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('```')) inFence = !inFence;
    const heading = !inFence && /^## (.+)$/.exec(line);
    if (heading) {
      current = { heading: heading[1].trim(), line: i + 1, body: [], examples: [], fixes: [] };
      sections.push(current);
      continue;
    }
    current?.body.push(line);
  }
  for (const section of sections) {
    section.examples = readExamples(section);
    section.fixes = section.body
      .map((l) => /^- `([^`]+)`(?:\s+—\s+(.*))?$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ title: m[1], flags: m[2] ?? '' }));
  }
  return sections;
}

function readExamples(section: DocSection): DocExample[] {
  const examples: DocExample[] = [];
  const { body } = section;
  for (let i = 0; i < body.length; i++) {
    const marker = /^(Wrong|Fixed)\b.*:$/.exec(body[i]);
    if (!marker) continue;
    let j = i + 1;
    while (j < body.length && body[j].trim() === '') j++;
    if (body[j] !== '```json') throw new Error(`docs/rules.md:${section.line + 1 + i}: "${body[i]}" is not followed by a \`\`\`json block.`);
    const start = j + 1;
    let end = start;
    while (end < body.length && body[end] !== '```') end++;
    if (end >= body.length) throw new Error(`docs/rules.md:${section.line + 1 + j}: the \`\`\`json block is not closed.`);
    examples.push({
      kind: marker[1] === 'Wrong' ? 'wrong' : 'fixed',
      label: body[i],
      text: body.slice(start, end).join('\n') + '\n',
      line: section.line + 1 + start,
    });
    i = end;
  }
  return examples;
}

/**
 * The graph the examples are judged against (docs/rules.md, "The examples"): a running server
 * whose graph has a model node `agent`, a ToolNode `TOOL` carrying the server tool `get_time`,
 * and a function node `format_answer`. With `attach`, the server was started with `text`, so
 * `TOOL` also lists the text's tools on it as remote tools, named and placed as the server reads
 * them (trimmed, `node_name` standing for `node`).
 */
export function exampleGraph(text: string, attach: boolean): Graph {
  const tools: GraphTool[] = [{ name: 'get_time', description: 'Get the current time on the server.', source: 'local' }];
  if (attach) {
    let config: unknown;
    try {
      config = JSON.parse(text);
    } catch {
      config = undefined;
    }
    const list = (config as { remote_tools?: unknown } | undefined)?.remote_tools;
    for (const tool of Array.isArray(list) ? list : []) {
      const { node, node_name, name, description } = (tool ?? {}) as Record<string, unknown>;
      const placed = node ?? node_name;
      if (typeof placed === 'string' && pythonStrip(placed) === 'TOOL' && typeof name === 'string')
        tools.push({ name: pythonStrip(name), description: typeof description === 'string' ? pythonStrip(description) : undefined, source: 'remote' });
    }
  }
  return {
    origin: 'live',
    toolsKnown: true,
    nodes: [
      { name: 'agent', kind: 'model_node' },
      { name: 'TOOL', kind: 'tool_node', tools },
      { name: 'format_answer', kind: 'function_node' },
    ],
    edges: [
      { source: 'agent', target: 'TOOL' },
      { source: 'TOOL', target: 'agent' },
      { source: 'agent', target: 'format_answer' },
    ],
  };
}

/** The files beside every example (docs/rules.md, "The examples"). */
const EXAMPLE_FILES: ReadonlySet<string> = new Set(['graph', 'graph/__init__.py', 'graph/dependencies.py', '.env']);
/** The names the example folder's `.env` sets. */
const EXAMPLE_ENV_NAMES: ReadonlySet<string> = new Set(['JWT_SECRET_KEY', 'JWT_ALGORITHM', 'REDIS_URL']);

/**
 * The folder the examples stand in, as the editor tells the rule set of it: the Python package
 * `graph` (`graph/__init__.py`, `graph/dependencies.py`) and the env file `.env`, which sets
 * `JWT_SECRET_KEY`, `JWT_ALGORITHM` and `REDIS_URL`. The environment the server runs in is unknown.
 */
export function exampleFiles(): ConfigFiles {
  return {
    fileExists: (path) => EXAMPLE_FILES.has(path),
    envNames: (path) => (path === '.env' ? EXAMPLE_ENV_NAMES : undefined),
  };
}

/**
 * What the loader says of an example's `agent`, as `10xgraph audit` passes it to the rule set
 * (`AuditOptions.agentUnresolved`): the example folder has the package `graph` and no module `graf`.
 */
export function exampleAgentUnresolved(text: string): string | undefined {
  return /"agent"\s*:\s*"graf:/.test(text)
    ? "Cannot find the module of agent 'graf:app': no graf.ts, graf.mts, graf.js, graf.mjs, graf/__init__.py or graf.py in the folder."
    : undefined;
}

/**
 * Whether the server of an example was started with the example itself. Only the wrong
 * example of `tool-not-attached` runs against a server started before its tool was added.
 */
export function serverStartedWithExample(code: string, example: DocExample): boolean {
  return !(code === 'tool-not-attached' && example.kind === 'wrong');
}
