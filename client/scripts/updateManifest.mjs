// Writes the extension-manifest keys of the root package.json (the file VS Code reads as the
// extension's manifest) and leaves every other key as it is: dependencies, workspaces and the
// other scripts belong to the rest of the project. `node client/scripts/updateManifest.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../../package.json', import.meta.url);
const manifest = JSON.parse(readFileSync(path, 'utf8'));

const settingsNote = 'Read by the 10xgraph language server (also in other editors, through `workspace/configuration`).';

const keys = {
  main: './dist/extension.js',
  icon: 'images/icon.png',
  categories: ['Programming Languages', 'Linters'],
  repository: { type: 'git', url: 'https://github.com/10xgraph/10xgraph.git' },
  activationEvents: ['workspaceContains:**/10xgraph.json', 'onLanguage:10xgraph-json', 'onLanguage:json'],
  capabilities: {
    untrustedWorkspaces: {
      supported: 'limited',
      description: 'In an untrusted workspace no 10xgraph server is contacted: files are checked without the live graph, and `10xgraph.server.url` from the workspace is ignored.',
      restrictedConfigurations: ['10xgraph.server.url'],
    },
    virtualWorkspaces: {
      supported: false,
      description: 'The language server reads 10xgraph.json files from disk.',
    },
  },
  contributes: {
    languages: [
      {
        id: '10xgraph-json',
        aliases: ['10xgraph JSON', '10xgraph'],
        filenames: ['10xgraph.json'],
        configuration: './client/language-configuration.json',
      },
    ],
    grammars: [
      {
        language: '10xgraph-json',
        scopeName: 'source.json.10xgraph',
        path: './client/syntaxes/10xgraph-json.tmLanguage.json',
      },
    ],
    configuration: {
      title: '10xgraph',
      properties: {
        '10xgraph.server.url': {
          type: 'string',
          default: 'http://localhost:8000',
          pattern: '^https?://',
          patternErrorMessage: 'An http:// or https:// URL, e.g. http://localhost:8000.',
          scope: 'resource',
          order: 0,
          markdownDescription:
            'The running 10xgraph server (`10xgraph api`) whose graph `10xgraph.json` is checked against: node names, ToolNodes and attached tools come from its `GET /v1/graph` and `GET /v1/graph/tools`. Never contacted in an untrusted workspace, where a workspace value of this setting is ignored. A token for it is set with **10xgraph: Set Server Token**. ' +
            settingsNote,
        },
        '10xgraph.server.enabled': {
          type: 'boolean',
          default: true,
          scope: 'resource',
          order: 1,
          markdownDescription: 'Check files against the live graph of `#10xgraph.server.url#`. When off, the rules that need the graph (`node-not-found`, `node-not-tool-node`, `name-conflicts-with-server-tool`, `tool-not-attached`) are skipped. ' + settingsNote,
        },
        '10xgraph.server.timeoutMs': {
          type: 'number',
          default: 2000,
          minimum: 50,
          maximum: 120000,
          scope: 'resource',
          order: 2,
          markdownDescription: 'Time allowed for one fetch of the live graph, in milliseconds. A slower server is shown as offline. ' + settingsNote,
        },
        '10xgraph.server.refreshSeconds': {
          type: 'number',
          default: 30,
          minimum: 0,
          maximum: 86400,
          scope: 'resource',
          order: 3,
          markdownDescription: 'How often the live graph is fetched again, in seconds (at least 5; `0` turns the timer off). It is also fetched on save and by **10xgraph: Refresh Graph**, never per keystroke. ' + settingsNote,
        },
        '10xgraph.files': {
          type: 'array',
          items: { type: 'string' },
          default: ['**/10xgraph.json'],
          scope: 'window',
          order: 4,
          markdownDescription: 'Globs of the files the language server checks, whatever their language mode. Matching files open in the **10xgraph JSON** language mode, so VS Code\'s own JSON support does not report their problems a second time. ' + settingsNote,
        },
      },
    },
    commands: [
      { command: '10xgraph.refresh', title: 'Refresh Graph', category: '10xgraph', icon: '$(refresh)' },
      { command: '10xgraph.auditWorkspace', title: 'Audit Workspace', category: '10xgraph', icon: '$(checklist)' },
      { command: '10xgraph.setServerToken', title: 'Set Server Token', category: '10xgraph', icon: '$(key)' },
      { command: '10xgraph.showOutput', title: 'Show Output', category: '10xgraph', icon: '$(output)' },
      { command: '10xgraph.restartServer', title: 'Restart Language Server', category: '10xgraph', icon: '$(debug-restart)' },
      { command: '10xgraph.openGraph', title: 'Open Graph', category: '10xgraph', icon: '$(type-hierarchy)' },
    ],
    menus: {
      'editor/title': [{ command: '10xgraph.openGraph', when: 'resourceLangId == 10xgraph-json', group: 'navigation' }],
    },
  },
};

const scripts = {
  package: 'node scripts/package.mjs',
  'test:electron': 'node --import tsx test/e2e/electron/runTests.ts',
  'setup:e2e': 'bash scripts/setup-vscode-e2e.sh',
};

// Keep the existing key order; new keys go after `engines`, where manifests usually keep them.
const out = {};
for (const [key, value] of Object.entries(manifest)) {
  if (key in keys) continue;
  out[key] = key === 'scripts' ? { ...value, ...scripts } : value;
  if (key === 'engines') Object.assign(out, keys);
}
if (!('main' in out)) Object.assign(out, keys);
if (!('scripts' in out)) out.scripts = scripts;
writeFileSync(path, JSON.stringify(out, null, 2) + '\n');
console.log('package.json: wrote the extension manifest keys');
