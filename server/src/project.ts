/**
 * The project: configs, the agent module each names and the handlers the sources register,
 * joined by name. Everything here reads the index's facts (sources are read, never run) and
 * answers in LSP terms; the server only wires it. A tool's name is one symbol across the
 * project: its declarations in every config and its `registerToolHandler` registrations.
 */
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Diagnostic, DiagnosticSeverity, type Location, type Position, type Range } from 'vscode-languageserver';
import { agentGraphOf, auditProjectConfig, auditProjectSource, PROJECT_RULES, pythonAgentGraphOf } from '10xgraph/rules';
import type { AgentGraph, Problem, ProjectFacts, ProjectRule, PythonModuleNames, SourceNameFact } from '10xgraph/rules';
import type { ConfigFacts, StringSite, ToolFacts } from './configFacts';
import { type DiagnosticData, ruleDocsHref } from './diagnostics';
import type { Positions } from './positions';
import type { ProjectIndex } from './projectIndex';
import { pythonExportOf, type PythonFacts } from './pythonFacts';
import { compiledGraphNames } from '10xgraph/workspace';
import type { HandlerSite, NodeSite, SourceFacts } from './sourceFacts';

/** `source` of the project's diagnostics (the same as the rule set's, so code actions find their fixes). */
const SOURCE = '10xgraph';

/** One registration of a handler in the workspace (`registerToolHandler` or `registerTool`). */
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

/** The agent module a config names, read from its source: the rule set's `AgentGraph` and the source's facts. */
export interface AgentSource extends AgentGraph {
  facts: SourceFacts;
}

/** The graph an agent module's source describes, or why it describes none exactly (the rule set's `agentGraphOf`). */
export function agentSourceOf(file: string, facts: SourceFacts): AgentSource {
  return { ...agentGraphOf(file, { nodes: facts.nodes.map((n) => ({ name: n.name, kind: n.kind, line: n.range.start.line })), syntaxError: facts.syntaxError }), facts };
}

/**
 * The graph a Python agent module describes for `variable` (the export `agent` names), or why it
 * describes none exactly (the rule set's `pythonAgentGraphOf`); its `add_node` names as the facts' nodes,
 * so navigation treats both languages alike. `shown` is the module's path from the config's folder.
 */
export function pythonAgentSourceOf(file: string, shown: string, facts: PythonFacts, spec: string, variable: string): AgentSource {
  const read = pythonExportOf(facts, variable);
  return { ...pythonAgentGraphOf(file, shown, read, { spec, graphs: compiledGraphNames(facts) }), facts: { handlers: [], nodes: read.ok ? read.nodes : [] } };
}

/** What the rule set's project rules know of the project, from the snapshot. */
function projectFactsOf(snapshot: ProjectSnapshot): ProjectFacts {
  return { complete: snapshot.complete, handled: snapshot.handlers, computedHandlers: snapshot.computed.length, declared: snapshot.declared };
}

/** A project problem of a config or a source as a diagnostic; `data` (the fixes and the version they apply to) when given. */
function diagnosticOf(problem: Problem, positionAt: Positions['positionAt'], data?: DiagnosticData): Diagnostic {
  return {
    range: { start: positionAt(problem.offset), end: positionAt(problem.offset + problem.length) },
    severity: problem.severity === 'error' ? DiagnosticSeverity.Error : problem.severity === 'warning' ? DiagnosticSeverity.Warning : DiagnosticSeverity.Information,
    source: SOURCE,
    code: problem.code,
    codeDescription: { href: ruleDocsHref(problem.code) },
    message: problem.message,
    ...(data ? { data } : {}),
  };
}

/** An information diagnostic on `agent` saying why node names are not checked (no server graph, module not exact): `graph-not-read`. */
export function graphNotReadDiagnostic(config: ConfigFacts, source: AgentSource | undefined): Diagnostic[] {
  return auditProjectConfig({ config: config.summary, project: NO_PROJECT, covered: false, agent: source }, only('graph-not-read')).map((p) => diagnosticOf(p, config.positionAt));
}

/** The config's `module:attribute` settings whose Python module binds no such name (`module-attribute-missing`, judged by the rule set). */
export function moduleAttributeProblems(config: ConfigFacts, modules: (module: string) => PythonModuleNames | undefined): Problem[] {
  return auditProjectConfig({ config: config.summary, project: NO_PROJECT, covered: false, modules }, only('module-attribute-missing'));
}

/** Those problems as diagnostics of the config's version `version` (their fixes carried in the data). */
export function moduleAttributeDiagnostics(config: ConfigFacts, problems: readonly Problem[], version: number | undefined): Diagnostic[] {
  return problems.map((p) => diagnosticOf(p, config.positionAt, { fixes: p.fixes ?? [], version } satisfies DiagnosticData));
}

/** Where the agent module adds node `name`. */
export function nodeSitesNamed(source: AgentSource | undefined, name: string): NodeSite[] {
  return source?.facts.nodes.filter((n) => n.name === name) ?? [];
}

/** The project rule of one code (the server asks each where its inputs are known). */
function only(code: ProjectRule['code']): ProjectRule[] {
  return PROJECT_RULES.filter((r) => r.code === code);
}

const NO_PROJECT: ProjectFacts = { complete: false, handled: new Set(), computedHandlers: 0, declared: new Set() };

// ---- diagnostics ------------------------------------------------------------------------

/**
 * Information diagnostics of a config: each remote tool that no source of the workspace
 * registers a handler for (`handler-missing`, judged by the rule set).
 */
export function missingHandlerDiagnostics(config: ConfigFacts, snapshot: ProjectSnapshot, covered: boolean): Diagnostic[] {
  return auditProjectConfig({ config: config.summary, project: projectFactsOf(snapshot), covered }, only('handler-missing')).map((p) => diagnosticOf(p, config.positionAt));
}

/**
 * Information diagnostics of a source: each handler registered under a literal name that no
 * config of the workspace declares, with the closest declared names as fixes (`handler-undeclared`,
 * judged by the rule set).
 */
export function undeclaredHandlerDiagnostics(facts: SourceFacts, snapshot: ProjectSnapshot, lines: Positions, version: number | undefined): Diagnostic[] {
  const span = (range: Range) => {
    const offset = lines.offsetAt(range.start);
    return { offset, length: lines.offsetAt(range.end) - offset };
  };
  const handlers: SourceNameFact[] = facts.handlers.map((h) => ({ name: h.name, ...span(h.range), ...(h.inner ? { inner: span(h.inner) } : {}), exact: h.exact }));
  return auditProjectSource({ handlers, project: projectFactsOf(snapshot) }, only('handler-undeclared')).map((p) =>
    diagnosticOf(p, (offset) => lines.positionAt(offset), { fixes: p.fixes ?? [], version } satisfies DiagnosticData),
  );
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

/**
 * The name typed so far when `before` (the text up to the cursor, from a few lines above it) ends
 * inside `registerToolHandler('…` or inside the `name: '…` of a `registerTool({ … })`.
 */
export function handlerNamePrefix(before: string): { prefix: string; quote: string } | undefined {
  const handler = /registerToolHandler\s*\(\s*(['"`])([^'"`\\\n]*)$/.exec(before);
  if (handler) return { prefix: handler[2], quote: handler[1] };
  const property = /\bname\s*:\s*(['"`])([^'"`\\\n]*)$/.exec(before);
  if (!property) return undefined;
  // The `name` of the object a `registerTool(` opens: no `}` between its `{` and the name.
  const call = before.lastIndexOf('registerTool', property.index);
  if (call < 0) return undefined;
  const open = /^registerTool\s*\(\s*\{/.exec(before.slice(call, property.index));
  if (!open || before.slice(call + open[0].length, property.index).includes('}')) return undefined;
  return { prefix: property[2], quote: property[1] };
}
