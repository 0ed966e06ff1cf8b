/**
 * Debian's Chromium for the real-browser tests, launched the way the e2e suite launches it, and
 * the sentence that says how to install it when it is missing.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { SETUP_COMMAND } from '../../e2e/support/tools';

/** Where scripts/setup-vscode-e2e.sh installs Chromium (Debian's package). */
export const CHROMIUM_PATH = process.env.TENXGRAPH_CHROMIUM ?? '/usr/bin/chromium';

import { CHROMIUM_ARGS } from '../../support/chromiumFlags';

/** Chromium's path, or why the suite cannot run (a sentence naming the command that installs it). */
export function findChromium(): { path: string; reason?: undefined } | { path?: undefined; reason: string } {
  if (existsSync(CHROMIUM_PATH)) return { path: CHROMIUM_PATH };
  return { reason: `Debian's Chromium is not installed (no ${CHROMIUM_PATH}): run \`${SETUP_COMMAND}\` (bash scripts/setup-vscode-e2e.sh) to install it` };
}

/** Launches Chromium headless. */
export function launchChromium(path: string): Promise<Browser> {
  return chromium.launch({ executablePath: path, args: CHROMIUM_ARGS });
}
