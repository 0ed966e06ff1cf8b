/**
 * One code-server (VS Code's web build with a Node extension host) on loopback, everything it
 * writes kept in a temporary folder, extensions installed from .vsix files as a user would.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { poll } from '../../support/poll';
import type { E2eTools } from './tools';

/** How to start one code-server. */
export interface CodeServerOptions {
  tools: E2eTools;
  /** The folder to open. */
  workspace: string;
  /** Extensions to install first (.vsix files). */
  extensions: string[];
  /** False runs with workspace trust on, so the folder opens in restricted mode. */
  trusted: boolean;
  /** User settings (settings.json of the profile). */
  userSettings: Record<string, unknown>;
  /** Extra environment for code-server and its extension host. */
  env?: Record<string, string>;
  /** Where its logs are copied when it stops. */
  logDir: string;
}

/** User settings that make a run deterministic (E2E.md). */
export const DETERMINISTIC_SETTINGS: Record<string, unknown> = {
  'files.autoSave': 'off',
  'editor.autoClosingBrackets': 'never',
  'editor.autoClosingQuotes': 'never',
  'editor.autoSurround': 'never',
  'editor.autoIndent': 'none',
  'editor.formatOnType': false,
  'editor.acceptSuggestionOnEnter': 'off',
  'editor.minimap.enabled': false,
  'chat.disableAIFeatures': true,
  'workbench.startupEditor': 'none',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'git.enabled': false,
  'remote.autoForwardPorts': false,
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.banner': 'never',
};

/** A running code-server. */
export class CodeServer {
  private exited = false;

  private constructor(
    private readonly child: ChildProcess,
    private readonly root: string,
    readonly port: number,
    readonly workspace: string,
    private readonly logDir: string,
  ) {
    child.once('exit', () => {
      this.exited = true;
    });
  }

  /** The URL that opens the workspace folder. */
  get folderUrl(): string {
    return `http://127.0.0.1:${this.port}/?folder=${encodeURIComponent(this.workspace)}`;
  }

  /** Installs the extensions, starts code-server and waits until it answers `/healthz`. */
  static async start(options: CodeServerOptions): Promise<CodeServer> {
    const root = mkdtempSync(join(tmpdir(), 'tenxgraph-e2e-cs-'));
    const dirs = { home: join(root, 'home'), ud: join(root, 'user-data'), ext: join(root, 'extensions'), tmp: join(root, 'tmp') };
    for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
    mkdirSync(join(dirs.ud, 'User'), { recursive: true });
    writeFileSync(join(dirs.ud, 'User', 'settings.json'), JSON.stringify(options.userSettings, null, 2));
    // code-server writes ~/.config/code-server/config.yaml and sockets into $TMPDIR even for --version.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: dirs.home,
      XDG_CONFIG_HOME: join(dirs.home, '.config'),
      XDG_DATA_HOME: join(dirs.home, '.local', 'share'),
      XDG_CACHE_HOME: join(dirs.home, '.cache'),
      TMPDIR: dirs.tmp,
      ...options.env,
    };
    delete env.NODE_OPTIONS; // tsx's loader is for this test process, not for code-server.
    const base = [options.tools.codeServer, '--user-data-dir', dirs.ud, '--extensions-dir', dirs.ext];
    for (const vsix of options.extensions) {
      const result = spawnSync(options.tools.node, [...base, '--install-extension', vsix], { env, encoding: 'utf8', timeout: 120_000 });
      if (result.status !== 0 || !/successfully installed/i.test(result.stdout)) {
        throw new Error(`code-server could not install ${vsix} (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
      }
    }
    const logFile = join(root, 'code-server.log');
    // The port is free when picked, not necessarily when code-server binds it: another process may
    // take it in between, and then code-server exits and is started again on another free port.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const log = openSync(logFile, 'w');
      const args = [
        ...base,
        '--bind-addr',
        `127.0.0.1:${port}`,
        '--auth',
        'none',
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-getting-started-override',
        ...(options.trusted ? ['--disable-workspace-trust'] : []),
        options.workspace,
      ];
      // Its own process group, so that stopping it also stops the extension host and the language server.
      const child = spawn(options.tools.node, args, { env, detached: true, stdio: ['ignore', log, log] });
      closeSync(log);
      const server = new CodeServer(child, root, port, options.workspace, options.logDir);
      try {
        const outcome = await poll(
          'code-server to answer /healthz',
          async () => {
            if (server.exited) return 'exited';
            const response = await fetch(`http://127.0.0.1:${port}/healthz`);
            return response.ok ? 'ready' : undefined;
          },
          60_000,
        );
        if (outcome === 'ready') return server;
        const output = readFileSync(logFile, 'utf8');
        if (attempt < 3 && /EADDRINUSE/.test(output)) {
          // What it started, if anything outlived it.
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            // The group is gone already.
          }
          continue;
        }
        throw new Error(`code-server exited:\n${output}`);
      } catch (error) {
        await server.stop();
        throw error;
      }
    }
  }

  /** Stops code-server and everything it started, and keeps its logs under `logDir`. */
  async stop(): Promise<void> {
    const pid = this.child.pid;
    if (pid !== undefined && !this.exited) {
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        // The group is already gone.
      }
      try {
        await poll('code-server to exit', () => (this.exited ? true : undefined), 10_000, 100);
      } catch {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // Gone meanwhile.
        }
      }
    }
    try {
      mkdirSync(this.logDir, { recursive: true });
      cpSync(join(this.root, 'code-server.log'), join(this.logDir, 'code-server.log'));
      const logs = join(this.root, 'user-data', 'logs');
      if (existsSync(logs)) cpSync(logs, join(this.logDir, 'vscode'), { recursive: true });
    } catch {
      // Logs are a courtesy for whoever reads a failed run; their absence must not fail it.
    }
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
