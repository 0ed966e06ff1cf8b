/**
 * Server tokens, kept in VS Code's SecretStorage and keyed by the server's origin, so that a
 * token is only ever handed out for the origin it was stored for.
 */
import * as vscode from 'vscode';
import { originOf } from './settings';

const KEY_PREFIX = '10xgraph.token:';

/** Reads and writes bearer tokens per server origin. */
export class TokenStore {
  private readonly changed = new vscode.EventEmitter<string>();
  /** Fires with the origin whose token was stored or removed. */
  readonly onDidChange = this.changed.event;

  constructor(private readonly secrets: vscode.SecretStorage) {}

  /** The token stored for `url`'s origin, if any. */
  async tokenFor(url: string): Promise<string | undefined> {
    const origin = originOf(url);
    if (origin === undefined) return undefined;
    const token = await this.secrets.get(KEY_PREFIX + origin);
    return token === undefined || token === '' ? undefined : token;
  }

  /** Stores `token` for `origin`; an empty token removes it. */
  async store(origin: string, token: string): Promise<void> {
    if (token === '') await this.secrets.delete(KEY_PREFIX + origin);
    else await this.secrets.store(KEY_PREFIX + origin, token);
    this.changed.fire(origin);
  }

  /** Releases the event emitter. */
  dispose(): void {
    this.changed.dispose();
  }
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
