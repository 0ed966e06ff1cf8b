/**
 * What the package suites share: the repository's version, the commands a user runs (in a user's environment,
 * without npm's script variables), a user's `npx 10xgraph api` and the packing of the tarballs with
 * `scripts/package.mjs`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { poll } from '../support/poll';

export const ROOT = join(__dirname, '..', '..');
export const VERSION = (JSON.parse(readFileSync(join(ROOT, 'runtime', 'package.json'), 'utf8')) as { version: string }).version;
/** The versions this repository builds with, so that npm finds them in its cache. */
export const versionOf = (name: string) => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
/** npm's flags for a quiet install that prefers its cache. */
export const QUIET_INSTALL = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];

/** What a command printed, and how it ended. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a user's shell: none of the npm_* variables `npm test` sets for its scripts. */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key) && key !== 'TENXGRAPH_TEST' && key !== 'TENXGRAPH_TOKEN') env[key] = value;
  return { ...env, ...extra };
}

/** Runs a command to its end and collects what it prints. */
export function run(command: string, args: string[], cwd: string, options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: options.env ?? userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Like `run`, but a failure throws with everything the command printed. */
export async function must(command: string, args: string[], cwd: string, options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Ran> {
  const ran = await run(command, args, cwd, options);
  if (ran.code !== 0) throw new Error(`'${command} ${args.join(' ')}' failed (exit ${ran.code}) in ${cwd}:\n${ran.stdout}\n${ran.stderr}`);
  return ran;
}

/** Packs the four files into `outDir` as `npm run package` does; resolves when they are written. */
export async function packTarballs(outDir: string): Promise<void> {
  await must(process.execPath, [join(ROOT, 'scripts', 'package.mjs'), '--out-dir', outDir], ROOT, { env: process.env, timeoutMs: 300_000 });
}

/** A user's `npx 10xgraph api`, listening, and everything it has printed so far. */
export interface UserApi {
  server: ChildProcess;
  url: string;
  output(): string;
}

/**
 * Starts `npx 10xgraph api ARGS` in `cwd` as a user does, in its own process group (so that stopping it stops
 * npx and the CLI under it), adds it to `servers` and resolves once it listens.
 */
export async function startUserApi(args: string[], cwd: string, servers: ChildProcess[]): Promise<UserApi> {
  const server = spawn('npx', ['10xgraph', 'api', ...args], { cwd, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  servers.push(server);
  let output = '';
  server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await poll(
    '10xgraph api to listen',
    () =>
      /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1] ?? (server.exitCode !== null ? Promise.reject(new Error(`exited ${server.exitCode}: ${output}`)) : undefined),
    60_000,
  );
  return { server, url, output: () => output };
}

/** Stops a server of `startUserApi`, its whole process group, and waits until it has exited. */
export async function stopUserApi(server: ChildProcess): Promise<void> {
  process.kill(-server.pid!, 'SIGTERM');
  await poll('10xgraph api to stop', () => server.exitCode !== null || server.signalCode !== null, 15_000);
}

/** Kills what is left of the servers of `startUserApi` (an `after` hook's last resort). */
export function killUserApis(servers: ChildProcess[]): void {
  for (const server of servers) if (server.exitCode === null && server.signalCode === null) process.kill(-server.pid!, 'SIGKILL');
}
