/**
 * The language service in a real browser: bundled for browsers (which fails on any Node module it
 * imports), loaded into a blank page of Debian's Chromium, and asked for the diagnostics of a
 * broken config there. The codes and ranges must be those the server publishes.
 *
 * Skipped, with the command that installs it, where Chromium is missing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { getLanguageService } from '../../server/src/service/index';
import { rangeOf } from '../support/textMarks';
import { findChromium, launchChromium } from './support/chromium';
import { bundleService, SERVICE_GLOBAL } from './support/serviceBundle';

const chromium = findChromium();

const BROKEN = `{
  "agent": "graph:app",
  "remote_tools": [
    { "node": "TOOLS", "name": "read clipboard", "desc": "Read the clipboard.", "parameters": { "type": "object" } },
    { "node": "TOOL", "name": "read clipboard", "description": "  ", "parameters": { "type": "objet" } }
  ]
}
`;

const GRAPH = {
  origin: 'live',
  toolsKnown: true,
  nodes: [
    { name: 'agent', kind: 'model_node' },
    { name: 'TOOL', kind: 'tool_node', tools: [] },
  ],
  edges: [],
} as const;

describe('the language service bundled for the browser', { timeout: 120_000 }, () => {
  test('a Node module anywhere in the service fails the bundle', async () => {
    const entry = { contents: "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n", resolveDir: join(__dirname), loader: 'ts' as const };
    await assert.rejects(bundleService(entry), /imports the Node module "node:fs"/);
    const bare = { contents: "export { join } from 'path';\n", resolveDir: join(__dirname), loader: 'ts' as const };
    await assert.rejects(bundleService(bare), /imports the Node module "path"/);
  });

  if (chromium.path === undefined) {
    // Reported as a skipped test with the reason, which names the command that installs Chromium.
    test('diagnostics in Chromium', { skip: chromium.reason }, () => {});
    return;
  }
  const chromiumPath = chromium.path;
  let browser: Browser;
  let bundle: string;

  before(async () => {
    bundle = await bundleService();
    browser = await launchChromium(chromiumPath);
  });
  after(async () => {
    await browser?.close();
  });

  test('diagnostics in Chromium: the codes and ranges the server gives', async () => {
    const page = await browser.newPage();
    try {
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.setContent('<!doctype html><title>10xgraph language service</title>');
      await page.addScriptTag({ content: bundle });
      const inBrowser = await page.evaluate(
        ({ name, text, graph }) => {
          const api = (globalThis as unknown as Record<string, { getLanguageService: typeof getLanguageService }>)[name];
          const service = api.getLanguageService();
          const config = service.checkConfig({ uri: 'file:///work/10xgraph.json', version: 1, text }, { graph: graph as never });
          return { agent: navigator.userAgent, diagnostics: service.doValidation(config).map((d) => ({ code: d.code, range: d.range, severity: d.severity })) };
        },
        { name: SERVICE_GLOBAL, text: BROKEN, graph: GRAPH },
      );
      assert.deepEqual(errors, []);
      assert.match(inBrowser.agent, /Chrom/);
      assert.deepEqual(
        inBrowser.diagnostics.map((d) => [d.code, d.range]),
        [
          ['node-not-found', rangeOf(BROKEN, '"TOOLS"')],
          ['invalid-tool-name', rangeOf(BROKEN, '"read clipboard"')],
          ['unknown-field', rangeOf(BROKEN, '"desc"')],
          ['duplicate-name', rangeOf(BROKEN, '"read clipboard"', 1)],
          ['invalid-tool-name', rangeOf(BROKEN, '"read clipboard"', 1)],
          ['tool-not-attached', rangeOf(BROKEN, '"read clipboard"', 1)],
          ['blank-field', rangeOf(BROKEN, '"  "')],
          ['parameters-type-not-object', rangeOf(BROKEN, '"objet"')],
        ],
      );
      // The same answer as the service in Node (the server's).
      const here = getLanguageService();
      const expected = here.doValidation(here.checkConfig({ uri: 'file:///work/10xgraph.json', version: 1, text: BROKEN }, { graph: GRAPH as never }));
      assert.deepEqual(
        inBrowser.diagnostics,
        expected.map((d) => ({ code: d.code, range: d.range, severity: d.severity })),
      );
    } finally {
      await page.close();
    }
  });
});
