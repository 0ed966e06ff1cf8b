/**
 * The project: configs, the agent module each names and the handlers the sources register,
 * joined by name. Everything here reads the index's facts (sources are read, never run) and
 * answers in LSP terms; the server only wires it. A tool's name is one symbol across the
 * project: its declarations in every config and its `registerToolHandler` registrations.
 */
import { access } from 'node:fs/promises';
import { basename, dirname, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Diagnostic, DiagnosticSeverity, type Location, type Position, type Range } from 'vscode-languageserver';
import { splitAgentSpec } from '10xgraph/rules';
import type { Fix, Graph, GraphNode } from '10xgraph/rules';
import { byCloseness } from '10xgraph/rules';
import { AGENT_EXTENSIONS } from '10xgraph/workspace';
import type { ConfigFacts, StringSite, ToolFacts } from './configFacts';
import type { DiagnosticData } from './diagnostics';
import type { Positions } from './positions';
import type { ProjectIndex } from './projectIndex';
import type { HandlerSite, NodeSite, SourceFacts } from './sourceFacts';

/** Where the project's diagnostics are explained. */
const PROJECT_DOCS_URL = 'https://github.com/10xgraph/10xgraph-tooling/blob/main/README.md#the-project-config-agent-module-and-handlers';

/** `source` of the project's diagnostics (the same as the rule set's, so code actions find their fixes). */
const SOURCE = '10xgraph';

/** The code of a remote tool no source registers a handler for. */
export const HANDLER_MISSING = 'handler-missing';
/** The code of a handler registered for a name no config declares. */
export const HANDLER_UNDECLARED = 'handler-undeclared';

/** One `registerToolHandler` call of the workspace. */
export interface HandlerRef {
  path: string;
  uri: string;
  site: HandlerSite;
}

/** One remote tool declared in a config of the workspace. */
export interface DeclarationRef {
  path: string;
  uri: string;
  tool: ToolFacts;
  name: StringSite;
}

/** The index joined by name, rebuilt when the index changes. */
export class ProjectSnapshot {
  readonly handlers = new Map<string, HandlerRef[]>();
  /** Registrations with a computed name: nothing is judged from them. */
  readonly computed: HandlerRef[] = [];
  readonly declared = new Map<string, DeclarationRef[]>();
  /** Every source was read (the scan is done and no bound was reached): absence can be judged. */
  readonly complete: boolean;

  constructor(
    readonly generation: number,
    index: ProjectIndex,
  ) {
    this.complete = index.complete && index.truncated === undefined;
    for (const file of index.all()) {
      const uri = pathToFileURL(file.path).href;
      for (const site of file.source?.handlers ?? []) {
        if (site.name === undefined) this.computed.push({ path: file.path, uri, site });
        else push(this.handlers, site.name, { path: file.path, uri, site });
      }
      for (const tool of file.config?.tools ?? []) if (tool.name) push(this.declared, tool.name.value, { path: file.path, uri, tool, name: tool.name });
    }
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** `file.ts:12` (one-based line), as people read a place. */
export function placeOf(path: string, range: Range): string {
  return `${basename(path)}:${range.start.line + 1}`;
}

/** Whether `position` lies within `range` (both ends included, as a cursor at a string's edge is in it). */
export function contains(range: Range, position: Position): boolean {
  const after = position.line > range.start.line || (position.line === range.start.line && position.character >= range.start.character);
  const before = position.line < range.end.line || (position.line === range.end.line && position.character <= range.end.character);
  return after && before;
}

// ---- the agent module -------------------------------------------------------------------

/** The agent module a config names, read from its source. */
export interface AgentSource {
  /** The module's file. */
  file: string;
  facts: SourceFacts;
  /** The graph read from the source, when every `addNode` there has a literal name and the file parses. */
  graph?: Graph;
  /** Why no graph was read from it (one sentence), when `graph` is undefined. */
  reason?: string;
  /** The reason is worth telling (a computed name or a syntax error), not merely a module that adds no node itself. */
  tell?: boolean;
}

/**
 * The file `agent` names, relative to the config's folder, as the loader resolves it (the same
 * extensions in the same order); undefined when no such file exists or the spec is malformed.
 */
export async function resolveAgentFile(configPath: string, spec: string): Promise<string | undefined> {
  const parts = splitAgentSpec(spec);
  if (!parts) return undefined;
  const base = resolve(dirname(configPath), parts.module);
  const candidates = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'].includes(extname(base)) ? [base] : AGENT_EXTENSIONS.map((ext) => base + ext);
  for (const candidate of candidates) {
    try {
      await access(candidate);
      return candidate;
    } catch {
      // Try the next extension, as the loader does.
    }
  }
  return undefined;
}

/** The graph an agent module's source describes, or why it describes none exactly. */
export function agentSourceOf(file: string, facts: SourceFacts): AgentSource {
  const name = basename(file);
  if (facts.syntaxError) return { file, facts, tell: true, reason: `${name} does not parse (${facts.syntaxError}), so node names are not checked without a running server.` };
  const computed = facts.nodes.find((n) => n.name === undefined);
  if (computed)
    return {
      file,
      facts,
      tell: true,
      reason: `${name} adds a node whose name is not a literal (line ${computed.range.start.line + 1}), so node names are not checked without a running server.`,
    };
  if (facts.nodes.length === 0) return { file, facts, reason: `${name} adds no node with addNode, so its nodes are not known.` };
  const nodes: GraphNode[] = [];
  const seen = new Set<string>();
  for (const node of facts.nodes) {
    if (seen.has(node.name!)) continue;
    seen.add(node.name!);
    nodes.push({ name: node.name!, kind: node.kind });
  }
  return { file, facts, graph: { origin: 'loaded', nodes, toolsKnown: false } };
}

/** The sentence added to a graph rule's message when the graph was read from the agent module's source. */
export function readFromSourceNote(file: string): string {
  return ` (Judged on the graph read from ${basename(file)}; no server graph is in use.)`;
}

/** The code of the note that the agent module's graph could not be read exactly. */
export const GRAPH_NOT_READ = 'graph-not-read';

/** An information diagnostic on `agent` saying why node names are not checked (no server graph, module not exact). */
export function graphNotReadDiagnostic(config: ConfigFacts, source: AgentSource | undefined): Diagnostic[] {
  if (!config.agent || !source?.tell || !source.reason) return [];
  return [
    {
      range: config.agent.range,
      severity: DiagnosticSeverity.Information,
      source: SOURCE,
      code: GRAPH_NOT_READ,
      codeDescription: { href: PROJECT_DOCS_URL },
      message: source.reason,
    },
  ];
}

/** Where the agent module adds node `name`. */
export function nodeSitesNamed(source: AgentSource | undefined, name: string): NodeSite[] {
  return source?.facts.nodes.filter((n) => n.name === name) ?? [];
}

// ---- diagnostics ------------------------------------------------------------------------

/**
 * Information diagnostics of a config: each remote tool that no source of the workspace
 * registers a handler for. Only judged when the config lies in an indexed folder, every source
 * was read, some source registers handlers (otherwise the client lives elsewhere) and none
 * registers one under a computed name (which could be any tool).
 */
export function missingHandlerDiagnostics(config: ConfigFacts, snapshot: ProjectSnapshot, covered: boolean): Diagnostic[] {
  if (!covered || !snapshot.complete || snapshot.computed.length > 0 || snapshot.handlers.size === 0) return [];
  const diagnostics: Diagnostic[] = [];
  for (const tool of config.tools) {
    const name = tool.name;
    if (!name || name.value.trim() === '' || snapshot.handlers.has(name.value)) continue;
    diagnostics.push({
      range: name.range,
      severity: DiagnosticSeverity.Information,
      source: SOURCE,
      code: HANDLER_MISSING,
      codeDescription: { href: PROJECT_DOCS_URL },
      message: `No source in the workspace registers a handler for '${name.value}': when the model calls it, the client will answer "Tool '${name.value}' not found". Register one with client.registerToolHandler('${name.value}', …).`,
    });
  }
  return diagnostics;
}

const SAFE_NAME = /^[^'"`\\\n\r$]*$/;

/**
 * Information diagnostics of a source: each handler registered under a literal name that no
 * config of the workspace declares, with the closest declared names as fixes.
 */
export function undeclaredHandlerDiagnostics(facts: SourceFacts, snapshot: ProjectSnapshot, lines: Positions, version: number | undefined): Diagnostic[] {
  // Nothing to compare with until every config was read, or when the workspace declares no tool.
  if (!snapshot.complete || snapshot.declared.size === 0) return [];
  const names = [...snapshot.declared.keys()].filter((n) => SAFE_NAME.test(n));
  const diagnostics: Diagnostic[] = [];
  for (const site of facts.handlers) {
    if (site.name === undefined || snapshot.declared.has(site.name)) continue;
    const fixes: Fix[] = [];
    if (site.inner && site.exact) {
      const offset = lines.offsetAt(site.inner.start);
      const length = lines.offsetAt(site.inner.end) - offset;
      byCloseness(site.name, names)
        .slice(0, 3)
        .forEach((name, i) => fixes.push({ title: `Change to '${name}'`, edits: [{ offset, length, newText: name }], isPreferred: i === 0 }));
    }
    diagnostics.push({
      range: site.range,
      severity: DiagnosticSeverity.Information,
      source: SOURCE,
      code: HANDLER_UNDECLARED,
      codeDescription: { href: PROJECT_DOCS_URL },
      message: `No 10xgraph config of the workspace declares a remote tool named '${site.name}', so the server never hands this handler a call${fixes.length ? `; did you mean '${byCloseness(site.name, names)[0]}'?` : '.'}`,
      data: { fixes, version } satisfies DiagnosticData,
    });
  }
  return diagnostics;
}

// ---- navigation -------------------------------------------------------------------------

/** What a position of a config or source points at. */
export type Target =
  { kind: 'tool'; name: string; site: StringSite | HandlerSite } | { kind: 'node'; name: string; site: StringSite } | { kind: 'agent'; spec: string; site: StringSite };

/** The tool name, node or agent at `position` of a config. */
export function configTargetAt(config: ConfigFacts, position: Position): Target | undefined {
  if (config.agent && contains(config.agent.range, position)) return { kind: 'agent', spec: config.agent.value, site: config.agent };
  for (const tool of config.tools) {
    if (tool.name && contains(tool.name.range, position)) return { kind: 'tool', name: tool.name.value, site: tool.name };
    if (tool.node && contains(tool.node.range, position)) return { kind: 'node', name: tool.node.value, site: tool.node };
  }
  return undefined;
}

/** The handler name at `position` of a source. */
export function sourceTargetAt(facts: SourceFacts, position: Position): Target | undefined {
  const site = facts.handlers.find((h) => h.name !== undefined && contains(h.range, position));
  return site ? { kind: 'tool', name: site.name!, site } : undefined;
}

/** Every place tool `name` is written: its declarations (configs), then its handlers (sources). */
export function toolLocations(snapshot: ProjectSnapshot, name: string): Location[] {
  return [
    ...(snapshot.declared.get(name) ?? []).map((d) => ({ uri: d.uri, range: d.name.range })),
    ...(snapshot.handlers.get(name) ?? []).map((h) => ({ uri: h.uri, range: h.site.range })),
  ];
}

/** The handlers of a tool as the code lens above it says it: `handler in client.ts:12 · attached to TOOL`. */
export function toolLensTitle(snapshot: ProjectSnapshot, tool: ToolFacts): string {
  const parts: string[] = [];
  const handlers = tool.name ? (snapshot.handlers.get(tool.name.value) ?? []) : [];
  if (handlers.length === 1) parts.push(`handler in ${placeOf(handlers[0].path, handlers[0].site.range)}`);
  else if (handlers.length > 1)
    parts.push(
      `${handlers.length} handlers: ${handlers
        .slice(0, 3)
        .map((h) => placeOf(h.path, h.site.range))
        .join(', ')}${handlers.length > 3 ? ', …' : ''}`,
    );
  else if (!snapshot.complete) parts.push('handlers: indexing…');
  else if (snapshot.computed.length > 0) parts.push('no handler with this literal name');
  else parts.push('no handler');
  if (tool.node) parts.push(`attached to ${tool.node.value}`);
  return parts.join(' · ');
}

/** Why a rename of tool `name` cannot be exact, or undefined when it can. */
export function renameRefusal(snapshot: ProjectSnapshot, name: string, site: StringSite | HandlerSite): string | undefined {
  if (!snapshot.complete) return 'The workspace is still being indexed (or is larger than the index holds), so a rename could miss a handler; try again once indexing is done.';
  if (!site.exact || !('inner' in site) || !site.inner) return `'${name}' is written with escapes here; rename it by hand.`;
  const inexact = [...(snapshot.declared.get(name) ?? []).map((d) => d.name), ...(snapshot.handlers.get(name) ?? []).map((h) => h.site)].find((s) => !s.exact || !s.inner);
  if (inexact) return `'${name}' is written with escapes somewhere, so a rename cannot replace every occurrence exactly; rename it by hand.`;
  return undefined;
}

/** The declarations and handlers of `name`, as the text ranges a rename replaces, per document. */
export function renameRanges(snapshot: ProjectSnapshot, name: string): Map<string, { path: string; ranges: Range[] }> {
  const byUri = new Map<string, { path: string; ranges: Range[] }>();
  const add = (uri: string, path: string, range: Range) => {
    const entry = byUri.get(uri) ?? { path, ranges: [] };
    entry.ranges.push(range);
    byUri.set(uri, entry);
  };
  for (const d of snapshot.declared.get(name) ?? []) add(d.uri, d.path, d.name.inner);
  for (const h of snapshot.handlers.get(name) ?? []) add(h.uri, h.path, h.site.inner!);
  return byUri;
}

/** The name typed so far when `before` (the text of a line up to the cursor) ends inside `registerToolHandler('…`. */
export function handlerNamePrefix(before: string): { prefix: string; quote: string } | undefined {
  const m = /registerToolHandler\s*\(\s*(['"`])([^'"`\\\n]*)$/.exec(before);
  return m ? { prefix: m[2], quote: m[1] } : undefined;
}
