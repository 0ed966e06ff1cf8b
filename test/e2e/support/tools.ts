/**
 * Finds the tools the e2e suite needs (code-server on Node 24, Chromium), as installed by
 * scripts/setup-vscode-e2e.sh, and says how to install them when they are missing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where the tools are. */
export interface E2eTools {
  /** Node 24, which code-server requires. */
  node: string;
  /** code-server's entry script (run with `node`). */
  codeServer: string;
  chromium: string;
}

/** The install command people are told about. */
export const SETUP_COMMAND = 'npm run setup:e2e';

/** The tools, or why they cannot be used (a sentence naming the command that installs them). */
export function findE2eTools(): { tools: E2eTools; reason?: undefined } | { tools?: undefined; reason: string } {
  const dir = process.env.VSCODE_E2E_DIR ?? join(homedir(), '.cache', 'vscode-e2e');
  const marker = join(dir, 'ready.json');
  const install = `run \`${SETUP_COMMAND}\` (bash scripts/setup-vscode-e2e.sh; about 2 minutes, once per machine) to install them`;
  if (!existsSync(marker)) return { reason: `the VS Code e2e tools are not installed (no ${marker}): ${install}` };
  let tools: E2eTools;
  try {
    tools = JSON.parse(readFileSync(marker, 'utf8')) as E2eTools;
  } catch (error) {
    return { reason: `${marker} is unreadable (${(error as Error).message}): ${install}` };
  }
  for (const [name, path] of Object.entries(tools)) {
    if (typeof path === 'string' && path.startsWith('/') && !existsSync(path)) return { reason: `the e2e tool ${name} is missing (${path}): ${install}` };
  }
  return { tools };
}
