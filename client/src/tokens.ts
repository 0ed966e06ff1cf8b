/**
 * Server tokens, kept in VS Code's SecretStorage and keyed by the server's origin, so that a
 * token is only ever handed out for the origin it was stored for.
 */
import * as vscode from 'vscode';
import { originOf } from '10xgraph/live';

const KEY_PREFIX = '10xgraph.token:';

/** Reads and writes bearer tokens per server origin. */
export class TokenStore {
  private readonly changed = new vscode.EventEmitter<string>();
  /** Fires with the origin whose token was stored or removed. */
  readonly onDidChange = this.changed.event;

  /**
   * Tokens read so far, by origin. The language server asks for its settings often (per
   * document), and a secret-storage read can take a while (in a browser-hosted VS Code it
   * goes through the window), so each origin is read once and kept until it changes.
   */
  private readonly cache = new Map<string, Promise<string | undefined>>();
  private readonly subscription: vscode.Disposable;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.subscription = secrets.onDidChange((event) => {
      if (event.key.startsWith(KEY_PREFIX)) this.cache.delete(event.key.slice(KEY_PREFIX.length));
    });
  }

  /** The token stored for `url`'s origin, if any. */
  tokenFor(url: string): Promise<string | undefined> {
    const origin = originOf(url);
    if (origin === undefined) return Promise.resolve(undefined);
    let token = this.cache.get(origin);
    if (token === undefined) {
      token = readWithin(this.secrets.get(KEY_PREFIX + origin), READ_TIMEOUT_MS).then(
        (value) => (value === '' ? undefined : value),
        () => {
          // Unreadable or too slow now: answer without a token, and read again next time.
          this.cache.delete(origin);
          return undefined;
        },
      );
      this.cache.set(origin, token);
    }
    return token;
  }

  /** Stores `token` for `origin`; an empty token removes it. */
  async store(origin: string, token: string): Promise<void> {
    if (token === '') await this.secrets.delete(KEY_PREFIX + origin);
    else await this.secrets.store(KEY_PREFIX + origin, token);
    this.cache.set(origin, Promise.resolve(token === '' ? undefined : token));
    this.changed.fire(origin);
  }

  /** Releases the subscriptions. */
  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}

const READ_TIMEOUT_MS = 3000;

function readWithin<T>(thenable: Thenable<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer from the secret storage within ${ms} ms`)), ms);
    thenable.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * `10xgraph: Set Server Token`: asks for the origin (the configured server's by default) and
 * the token, and stores it. An empty token removes the stored one.
 */
export async function promptForToken(store: TokenStore, currentUrl: string): Promise<string | undefined> {
  const origin = await vscode.window.showInputBox({
    title: '10xgraph: Set Server Token (1/2)',
    prompt: 'The server the token belongs to. It is sent to this origin only.',
    value: originOf(currentUrl) ?? '',
    ignoreFocusOut: true,
    validateInput: (value) => (originOf(value.trim()) === undefined ? 'Enter an http:// or https:// URL, e.g. http://localhost:8000.' : undefined),
  });
  if (origin === undefined) return undefined;
  const normalised = originOf(origin.trim());
  if (normalised === undefined) return undefined;
  const token = await vscode.window.showInputBox({
    title: '10xgraph: Set Server Token (2/2)',
    prompt: `Bearer token for ${normalised}. Leave empty to remove the stored token.`,
    password: true,
    ignoreFocusOut: true,
  });
  if (token === undefined) return undefined;
  await store.store(normalised, token.trim());
  void vscode.window.showInformationMessage(
    token.trim() === '' ? `10xgraph: removed the token for ${normalised}.` : `10xgraph: stored the token for ${normalised}; it is sent to that origin only.`,
  );
  return normalised;
}
