/**
 * The config whose document symbols the in-process tests (`service.test.ts`) and the stdio tests
 * (`features.test.ts`) both check, and the outline both expect of it.
 */
import type { DocumentSymbol, SymbolInformation } from 'vscode-languageserver-protocol';

/** Two nodes, three tools, one tool with an argument. */
export const SYMBOLS_CONFIG = `{
  "agent": "graph:app",
  "remote_tools": [
    { "node": "TOOL", "name": "a", "description": "x", "parameters": { "type": "object", "properties": { "q": { "type": "string" } } } },
    { "node": "OTHER", "name": "b", "description": "x" },
    { "node": "TOOL", "name": "c", "description": "x" }
  ]
}`;

/** A hierarchical symbol as its name, or its name over its children's shapes. */
export const symbolShape = (s: DocumentSymbol): unknown => (s.children?.length ? { [s.name]: s.children.map(symbolShape) } : s.name);

/** The hierarchical outline of `SYMBOLS_CONFIG`: each tool under its node, its arguments under it. */
export const SYMBOLS_TREE = ['agent', { TOOL: [{ a: ['q'] }, 'c'] }, { OTHER: ['b'] }];

/** Each flat symbol as its name and container. */
export const flatSymbolShape = (flat: SymbolInformation[]) => flat.map((s) => [s.name, s.containerName ?? null]);

/** The flat outline of `SYMBOLS_CONFIG`. */
export const SYMBOLS_FLAT = [
  ['agent', null],
  ['TOOL', null],
  ['a', 'TOOL'],
  ['q', 'a'],
  ['c', 'TOOL'],
  ['OTHER', null],
  ['b', 'OTHER'],
];
