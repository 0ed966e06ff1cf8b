/**
 * The language service (`server/src/service`) bundled for browsers, in memory: esbuild with
 * platform `browser`, and a guard that fails the build on any Node built-in module, so that a
 * `node:` import reaching the service (directly or through a module it imports) breaks the bundle
 * instead of a page.
 */
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import * as esbuild from 'esbuild';

const ROOT = join(__dirname, '..', '..', '..');

/** The service's entry. */
export const SERVICE_ENTRY = join(ROOT, 'server', 'src', 'service', 'index.ts');

/** The global the bundle assigns the service's exports to. */
export const SERVICE_GLOBAL = 'TenxGraphLanguageService';

const BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('_')));

/** Refuses every Node built-in module (`node:fs`, `fs`, `path`…), naming the module that imports it. */
const noNodeBuiltins: esbuild.Plugin = {
  name: 'no-node-builtins',
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) => {
      const bare = args.path.startsWith('node:') ? args.path.slice(5) : args.path;
      if (!args.path.startsWith('node:') && !BUILTINS.has(bare.split('/')[0])) return undefined;
      return {
        errors: [{ text: `the language service imports the Node module "${args.path}" (from ${args.importer}); a browser has none: take it through the service's host instead` }],
      };
    });
  },
};

/** Bundles `entry` (the service unless told otherwise) for browsers as an IIFE setting `SERVICE_GLOBAL`; rejects when a Node module is imported. */
export async function bundleService(entry: esbuild.BuildOptions['stdin'] | string = SERVICE_ENTRY): Promise<string> {
  const result = await esbuild.build({
    ...(typeof entry === 'string' ? { entryPoints: [entry] } : { stdin: entry }),
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    globalName: SERVICE_GLOBAL,
    target: 'es2022',
    logLevel: 'silent',
    plugins: [noNodeBuiltins],
  });
  return result.outputFiles[0].text;
}
