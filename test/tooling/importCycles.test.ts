import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importsOf, listSources } from './importGraph';

const PARTS = ['runtime/src', 'server/src', 'client/src', 'common'];

/**
 * Every cycle of a dependency graph, each as the sorted list of the vertices around it, found
 * as the strongly connected components (Tarjan) with more than one vertex or a self-loop.
 */
function cyclesOf(edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter++;
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || (edges.get(file) ?? []).includes(file)) cycles.push(component.sort());
    }
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

/** The import graph of files (type-only imports included: a loop of types is a loop of meaning too). */
function fileGraph(files: string[]): Map<string, string[]> {
  return new Map(files.map((file) => [file, importsOf(file).flatMap((edge) => (edge.target ? [edge.target] : []))]));
}

/** The same graph between the runtime's top-level folders (`graph`, `models`, …; a top-level file stands for itself). */
function folderGraph(files: string[]): Map<string, string[]> {
  const unit = (file: string) => file.replace(/^runtime\/src\//, '').split('/')[0];
  const edges = new Map<string, Set<string>>();
  for (const [file, targets] of fileGraph(files)) {
    const from = unit(file);
    const set = edges.get(from) ?? new Set<string>();
    for (const target of targets) if (target.startsWith('runtime/src/') && unit(target) !== from) set.add(unit(target));
    edges.set(from, set);
  }
  return new Map([...edges].map(([from, set]) => [from, [...set]]));
}

test('the import graph of every part has no cycle', () => {
  const files = PARTS.flatMap((part) => listSources(part));
  assert.ok(files.length > 50, 'the sources were found');
  assert.deepEqual(cyclesOf(fileGraph(files)), []);
});

test("the runtime's folders depend on each other one way only (no graph ↔ models)", () => {
  const graph = folderGraph(listSources('runtime/src'));
  assert.ok(graph.get('graph')?.includes('models'), 'the graph library uses the model interface');
  assert.deepEqual(cyclesOf(graph), []);
});

test('the cycle finder reports a loop and its members, and nothing for a chain', () => {
  const loop = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a', 'd']],
    ['d', []],
    ['e', ['e']],
  ]);
  assert.deepEqual(
    cyclesOf(loop)
      .map((c) => c.join(','))
      .sort(),
    ['a,b,c', 'e'],
  );
  assert.deepEqual(
    cyclesOf(
      new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', []],
      ]),
    ),
    [],
  );
});
