/**
 * The docs' TypeScript client snippets: every ```ts block of the READMEs (the repository's and the
 * client package's) and of docs/ that imports `10xgraph-client`, as a user would copy it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** One snippet and where it stands (`README.md:118`). */
export interface Snippet {
  source: string;
  code: string;
}

/** The Markdown files of the docs: the READMEs and every .md file under docs/. */
function listDocs(root: string): string[] {
  const files = [join(root, 'README.md'), join(root, 'client-sdk', 'README.md')];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) files.push(path);
    }
  };
  walk(join(root, 'docs'));
  return files;
}

/** Every ```ts (or ```typescript) block of the docs that imports from `10xgraph-client`. */
export function extractClientSnippets(root: string): Snippet[] {
  const snippets: Snippet[] = [];
  for (const file of listDocs(root)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!/^\s*```(ts|typescript)\s*$/.test(lines[i]!)) continue;
      const start = i + 1;
      let end = start;
      while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) end++;
      const code = lines.slice(start, end).join('\n');
      if (/from ['"]10xgraph-client['"]/.test(code)) snippets.push({ source: `${relative(root, file)}:${start + 1}`, code });
      i = end;
    }
  }
  return snippets;
}
