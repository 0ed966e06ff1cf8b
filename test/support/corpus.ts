/**
 * The fixture corpus: test/fixtures/corpus/*.json, each with the problems expected of it in
 * NAME.expected.txt beside it (one line a problem: `LINE:COL-LINE:COL severity code`,
 * one-based, as the CLI prints positions). The graph rules are judged on the corpus
 * graph (test/fixtures/corpus/graph.ts, described by CORPUS_GRAPH).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LineIndex, type Graph, type Problem } from '../../runtime/src/rules/index';

export const CORPUS_DIR = join(__dirname, '..', 'fixtures', 'corpus');

/** The graph of test/fixtures/corpus/graph.ts, as the runtime knows it in-process. */
export const CORPUS_GRAPH: Graph = {
  origin: 'loaded',
  toolsKnown: true,
  nodes: [
    { name: 'agent', kind: 'model_node' },
    { name: 'TOOL', kind: 'tool_node', tools: [{ name: 'get_time', description: 'Get the current time on the server.', source: 'local' }] },
    { name: 'format_answer', kind: 'function_node' },
  ],
  edges: [
    { source: 'agent', target: 'TOOL' },
    { source: 'TOOL', target: 'agent' },
    { source: 'agent', target: 'format_answer' },
  ],
};

/** One corpus file with its text and expected problem lines. */
export interface CorpusCase {
  name: string;
  path: string;
  text: string;
  expected: string[];
}

/** Every corpus file, by name. */
export function loadCorpus(): CorpusCase[] {
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.json'.length);
      const expectedText = readFileSync(join(CORPUS_DIR, `${name}.expected.txt`), 'utf8');
      return {
        name,
        path: join(CORPUS_DIR, file),
        text: readFileSync(join(CORPUS_DIR, file), 'utf8'),
        expected: expectedText
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== '' && !l.startsWith('#')),
      };
    });
}

/** A problem as an expectation line. */
export function describeProblem(lines: LineIndex, problem: Pick<Problem, 'offset' | 'length' | 'severity' | 'code'>): string {
  const s = lines.positionAt(problem.offset);
  const e = lines.positionAt(problem.offset + problem.length);
  return `${s.line + 1}:${s.character + 1}-${e.line + 1}:${e.character + 1} ${problem.severity} ${problem.code}`;
}
