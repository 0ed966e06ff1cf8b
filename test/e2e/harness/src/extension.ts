/**
 * The e2e harness extension, installed only for test runs. Two ways in:
 *  - in code-server, `activate` starts a control server on loopback (its port goes to the file
 *    named by TENXGRAPH_E2E_CONTROL_FILE) and the test outside runs checks by name with
 *    `POST /run/<check>` and JSON arguments;
 *  - under `@vscode/test-electron`, `run` (the extensionTestsPath entry) runs the plan in
 *    TENXGRAPH_E2E_PLAN, a JSON list of `{check, args}`, and throws on the first failure.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checks } from './suite';

let control: Server | undefined;

/** Starts the control server when the test run asked for it. */
export function activate(): void {
  const file = process.env.TENXGRAPH_E2E_CONTROL_FILE;
  if (file === undefined || file === '') return;
  control = createServer((request, response) => {
    const match = /^\/run\/([A-Za-z]+)$/.exec(request.url ?? '');
    if (request.method !== 'POST' || match === null) {
      response.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void runCheck(match[1]!, Buffer.concat(chunks).toString('utf8')).then((outcome) => {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(outcome));
      });
    });
  });
  control.listen(0, '127.0.0.1', () => {
    const { port } = control!.address() as AddressInfo;
    // Written whole, then renamed: the test never reads half a file.
    writeFileSync(`${file}.tmp`, JSON.stringify({ port, pid: process.pid }));
    renameSync(`${file}.tmp`, file);
  });
}

/** Stops the control server. */
export function deactivate(): void {
  control?.close();
}

/** The `@vscode/test-electron` entry: runs every check of TENXGRAPH_E2E_PLAN in order. */
export async function run(): Promise<void> {
  const plan = JSON.parse(process.env.TENXGRAPH_E2E_PLAN ?? '[]') as { check: string; args?: Record<string, unknown> }[];
  if (plan.length === 0) throw new Error('TENXGRAPH_E2E_PLAN lists no check to run');
  for (const step of plan) {
    const outcome = await runCheck(step.check, JSON.stringify(step.args ?? {}));
    if (!outcome.ok) throw new Error(`in-host check ${step.check} failed: ${outcome.error}`);
    console.log(`ok - ${step.check}`);
  }
}

async function runCheck(name: string, body: string): Promise<{ ok: true; result: unknown } | { ok: false; error: string }> {
  const check = checks[name];
  if (check === undefined) return { ok: false, error: `no check named '${name}' (checks: ${Object.keys(checks).join(', ')})` };
  try {
    const args = body.trim() === '' ? {} : (JSON.parse(body) as Record<string, unknown>);
    return { ok: true, result: (await check(args)) ?? null };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}
