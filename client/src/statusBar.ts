/**
 * The status bar item that shows the live graph's state, as the language server reports it
 * with `10xgraph/status`.
 */
import * as vscode from 'vscode';
import type { StatusParams } from '../../common/protocol';
import { describeStatus, STARTING_VIEW, type StatusView } from './statusText';

/** The (internal) command a click on the item runs; it refreshes or opens the settings. */
export const STATUS_CLICK_COMMAND = '10xgraph.statusBarClicked';

/** Owns the status bar item; `update` is called with each `10xgraph/status`. */
export class GraphStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private status: StatusParams | undefined;
  private view: StatusView = STARTING_VIEW;
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor() {
    this.item = vscode.window.createStatusBarItem('10xgraph.status', vscode.StatusBarAlignment.Left, 10);
    this.item.name = '10xgraph Live Graph';
    this.item.command = STATUS_CLICK_COMMAND;
    this.render();
    this.item.show();
  }

  /** The last status the server sent, if any. */
  get current(): StatusParams | undefined {
    return this.status;
  }

  /** What a click does right now. */
  get action(): StatusView['action'] {
    return this.view.action;
  }

  /** The text currently shown (for tests and the output channel). */
  get text(): string {
    return this.item.text;
  }

  /** Shows a new state from the server. */
  update(status: StatusParams): void {
    this.status = status;
    this.render();
    // The age in the tooltip ("fetched 12 s ago") goes stale; re-render while there is an age to show.
    if (status.fetchedAt !== undefined && this.ticker === undefined) {
      this.ticker = setInterval(() => this.render(), 10_000);
    } else if (status.fetchedAt === undefined && this.ticker !== undefined) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  /** Shows that the server is (re)starting, or stopped with a reason. */
  reset(message?: string): void {
    this.status = undefined;
    this.view = message === undefined ? STARTING_VIEW : { ...STARTING_VIEW, text: '$(error) 10xgraph', tooltip: `**10xgraph**: ${message}`, severity: 'warning' };
    this.apply();
  }

  /** Shows a transient "refreshing" spin until the next status arrives. */
  showRefreshing(): void {
    this.item.text = this.view.text.replace(/^\$\([^)]*\)/, '$(sync~spin)');
  }

  dispose(): void {
    if (this.ticker !== undefined) clearInterval(this.ticker);
    this.item.dispose();
  }

  private render(): void {
    this.view = this.status === undefined ? STARTING_VIEW : describeStatus(this.status, Date.now());
    this.apply();
  }

  private apply(): void {
    this.item.text = this.view.text;
    const tooltip = new vscode.MarkdownString(this.view.tooltip, true);
    tooltip.isTrusted = { enabledCommands: ['workbench.trust.manage'] };
    this.item.tooltip = tooltip;
    this.item.backgroundColor = this.view.severity === 'warning' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }
}
