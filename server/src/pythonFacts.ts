/**
 * What one Python module says about the project, in LSP terms: for each top-level name it binds,
 * the graph `"agent": "module:name"` would be read as (its nodes, and where each `add_node`
 * names one) or why it cannot be read exactly. The module is read (never run) by the runtime's
 * Python reader (`readPythonModule`, the one `10xgraph audit` uses); this module only turns its
 * offsets into ranges.
 */
import { LineIndex } from '10xgraph/rules';
import { type PythonGraphRead, type PythonUnread, readPythonModule, unboundRead } from '10xgraph/workspace';
import type { NodeSite } from './sourceFacts';

/** The graph of one top-level name, with the ranges of its `add_node` names; or why none is read exactly. */
export type PythonExport = { ok: true; graph: Extract<PythonGraphRead, { ok: true }>['graph']; nodes: NodeSite[] } | PythonUnread;

/** The facts of one Python module. */
export interface PythonFacts {
  /** Why no name of the module can be read (a syntax error, a module too large). */
  unread?: string;
  exports: Array<[string, PythonExport]>;
  /** Why the module may bind names `exports` does not list (`PythonModuleRead.namesOpen`). */
  namesOpen?: string;
}

/** Reads the facts of one Python module's text. Never throws. */
export function readPythonFacts(text: string): PythonFacts {
  const module = readPythonModule(text);
  if (module.unread !== undefined) return { unread: module.unread, exports: [] };
  const lines = new LineIndex(text);
  const rangeOf = (offset: number, length: number) => ({ start: lines.positionAt(offset), end: lines.positionAt(offset + length) });
  return {
    ...(module.namesOpen !== undefined ? { namesOpen: module.namesOpen } : {}),
    exports: module.exports.map(([name, read]): [string, PythonExport] => [
      name,
      read.ok ? { ok: true, graph: read.graph, nodes: read.sites.map((s) => ({ name: s.name, kind: s.kind, range: rangeOf(s.nameOffset, s.nameLength), exact: false })) } : read,
    ]),
  };
}

/** The graph of `variable`, as `readPythonGraph` answers (the same reasons). */
export function pythonExportOf(facts: PythonFacts, variable: string): PythonExport {
  const found = facts.unread === undefined ? facts.exports.find(([name]) => name === variable) : undefined;
  return found ? found[1] : unboundRead(facts, variable);
}

/** What the project's diagnostics depend on in a module: its graphs and reasons, ranges left out. */
export function pythonNamesKey(facts: PythonFacts): unknown {
  return [facts.unread ?? null, facts.namesOpen ?? null, facts.exports.map(([name, e]) => [name, e.ok ? e.graph.nodes.map((n) => [n.name, n.kind]) : e.reason])];
}
