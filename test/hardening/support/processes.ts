/**
 * Runs the built CLI as a user would, with a time bound and its peak memory: the child's
 * `VmHWM` (the resident set's high-water mark) is read from /proc while it runs, and the child
 * reports its own high-water mark as it exits (peakOnExit.cjs), so a short run is measured too.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './agentFolder';

export const CLI_JS = join(ROOT, 'runtime', 'dist', 'cli.js');
const PEAK_ON_EXIT = join(__dirname, 'peakOnExit.cjs');

/** The resident-set high-water mark of `pid` in bytes, or undefined once it is gone. */
export function peakRss(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** What one run did. */
export interface MeasuredRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall time until exit, or until it said it was ready. */
  ms: number;
  /** Peak resident memory seen, in bytes. */
  peakBytes: number;
  /** Whether `ready` matched (the server listened) before it exited. */
  ready: boolean;
  /** Whether it was killed for running past `timeoutMs`. */
  timedOut: boolean;
}

/**
 * Runs `node runtime/dist/cli.js ...args` in `cwd`. When `ready(stdout)` matches (a server listening), the
 * time is taken and the process is sent SIGTERM. A run past `timeoutMs` is killed.
 */
export function runMeasured(args: string[], options: { cwd: string; timeoutMs: number; ready?: (stdout: string) => boolean }): Promise<MeasuredRun> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--require', PEAK_ON_EXIT, CLI_JS, ...args], {
      cwd: options.cwd,
      env: { ...process.env, TENXGRAPH_TOKEN: '' },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let reported = '';
    (child.stdio[3] as NodeJS.ReadableStream).setEncoding('utf8').on('data', (text: string) => (reported += text));
    let peak = 0;
    let ready = false;
    let readyMs: number | undefined;
    let timedOut = false;
    let tail = '';
    const sample = () => {
      const rss = child.pid === undefined ? undefined : peakRss(child.pid);
      if (rss !== undefined) peak = Math.max(peak, rss);
    };
    const poll = setInterval(sample, 20);
    child.stdout!.on('data', (d: Buffer) => {
      out.push(d);
      if (options.ready && !ready) {
        tail = (tail + d.toString('utf8')).slice(-4096);
        if (options.ready(tail)) {
          ready = true;
          readyMs = Date.now() - started;
          sample();
          child.kill('SIGTERM');
        }
      }
    });
    child.stderr!.on('data', (d: Buffer) => err.push(d));
    const timer = setTimeout(() => {
      timedOut = true;
      sample();
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', reject);
    child.on('exit', sample);
    child.on('close', (code, signal) => {
      clearInterval(poll);
      clearTimeout(timer);
      // 'close' comes after every pipe has ended: the exit report, if the process lived to write it, is in.
      const own = Number(reported.trim());
      if (Number.isFinite(own) && own > 0) peak = Math.max(peak, own);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        ms: readyMs ?? Date.now() - started,
        peakBytes: peak,
        ready,
        timedOut,
      });
    });
  });
}
