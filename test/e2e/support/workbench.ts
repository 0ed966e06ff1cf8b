/**
 * The VS Code workbench in Chromium, driven the way a person uses it: the explorer, the
 * keyboard, the Problems panel, the status bar, the command palette. Every wait polls.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type FrameLocator, type Locator, type Page } from 'playwright-core';
import type { CodeServer } from './codeServer';
import { poll } from '../../support/poll';
import { CHROMIUM_ARGS } from '../../support/chromiumFlags';

/** The id of our status bar item's element: `<extension id>.<item id>`. */
const STATUS_ITEM = '[id="tenxgraph.10xgraph-vscode.10xgraph.status"]';

/** One browser page on one code-server's workbench. */
export class Workbench {
  private constructor(
    private readonly browser: Browser,
    readonly page: Page,
    private readonly screenshotDir: string,
  ) {}

  /** Opens the workspace of `server` in Chromium and waits for the explorer. */
  static async open(server: CodeServer, chromiumPath: string, screenshotDir: string): Promise<Workbench> {
    const browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(server.folderUrl);
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 60_000 });
      mkdirSync(screenshotDir, { recursive: true });
      return new Workbench(browser, page, screenshotDir);
    } catch (error) {
      await browser.close();
      throw error;
    }
  }

  /** Closes the browser. */
  async close(): Promise<void> {
    await this.browser.close();
  }

  /** Saves a screenshot of the whole window as `<name>.png`; returns its path. */
  async screenshot(name: string): Promise<string> {
    const path = join(this.screenshotDir, `${name}.png`);
    await this.page.screenshot({ path });
    return path;
  }

  /** Opens a top-level file of the workspace by double-clicking its explorer row, and waits for its editor. */
  async openFile(name: string): Promise<void> {
    const row = this.page.locator(`.explorer-folders-view .monaco-list-row[aria-label="${name}"]`).first();
    await row.waitFor({ timeout: 30_000 });
    await row.dblclick();
    await this.page.locator('.tabs-container .tab.active', { hasText: name }).waitFor({ timeout: 30_000 });
    await this.focusEditor();
  }

  /** Puts the keyboard focus in the active editor. */
  async focusEditor(): Promise<void> {
    // Recent VS Code types through an EditContext element; older ones through a textarea.
    await this.page.locator('.editor-group-container.active .monaco-editor').locator('.native-edit-context, textarea.inputarea').first().focus();
  }

  /** Moves the cursor of the active editor to a one-based line and column (Go to Line). */
  async goTo(line: number, column: number): Promise<void> {
    await this.focusEditor();
    await this.page.keyboard.press('Control+G');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(`:${line}:${column}`);
    await this.page.keyboard.press('Enter');
    await input.waitFor({ state: 'hidden' });
    await poll(
      `the cursor at ${line}:${column}`,
      async () => {
        const at = await this.cursor();
        return at.line === line && at.column === column ? true : undefined;
      },
      10_000,
    );
  }

  /** The one-based line and column of the active editor's cursor, as the status bar shows them. */
  async cursor(): Promise<{ line: number; column: number }> {
    const text = await this.page
      .locator('.statusbar-item', { hasText: /^Ln \d+, Col \d+/ })
      .first()
      .innerText();
    const [, line, column] = /^Ln (\d+), Col (\d+)/.exec(text)!;
    return { line: Number(line), column: Number(column) };
  }

  /** Shows the hover at the cursor of the active editor (Show or Focus Hover) and returns its text once it contains `needle`. */
  async hoverAtCursor(needle: string): Promise<string> {
    const hover = this.page.locator('.monaco-editor .monaco-hover', { hasText: needle }).first();
    return this.hoverText(`the hover at the cursor to show ${needle}`, hover, async () => {
      // A hover shown before the text it needs stays as it is: close it and ask again.
      await this.page.keyboard.press('Escape');
      await this.focusEditor();
      await this.page.keyboard.press('Control+K');
      await this.page.keyboard.press('Control+I');
    });
  }

  /** Polls until `show` makes `hover` visible (3 s a try, 20 s in all) and returns its text. */
  private hoverText(what: string, hover: Locator, show: () => Promise<void>): Promise<string> {
    return poll(
      what,
      async () => {
        await show();
        try {
          await hover.waitFor({ state: 'visible', timeout: 3_000 });
        } catch {
          return undefined;
        }
        return hover.innerText();
      },
      20_000,
      0,
    );
  }

  /** The active editor's text as VS Code renders it (spaces normalised). */
  async editorText(): Promise<string> {
    const text = await this.page.locator('.editor-group-container.active .monaco-editor .view-lines').first().innerText();
    return text.replace(/\u00a0/g, ' ');
  }

  /** Shows the Problems panel. */
  async showProblems(): Promise<Locator> {
    const panel = this.page.locator('.markers-panel');
    if (!(await panel.isVisible())) await this.runCommand('Problems: Focus on Problems View');
    await panel.waitFor({ state: 'visible' });
    return panel;
  }

  /** The rows of the Problems panel (file rows and problem rows), as text. */
  async problems(): Promise<string[]> {
    const panel = await this.showProblems();
    return panel.locator('.monaco-list-row').allInnerTexts();
  }

  /** Waits until the Problems panel's rows satisfy `accept`. */
  async waitForProblems(what: string, accept: (rows: string[]) => boolean, timeoutMs = 30_000): Promise<string[]> {
    return poll(
      `the Problems panel to show ${what}`,
      async () => {
        const rows = await this.problems();
        return accept(rows) ? rows : undefined;
      },
      timeoutMs,
    );
  }

  /** Runs a command from the command palette by its title (`match` is what must appear in the chosen row). */
  async runCommand(title: string, match = title): Promise<void> {
    await this.page.keyboard.press('Escape');
    await this.page.keyboard.press('F1');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(`>${title}`);
    const row = this.page.locator('.quick-input-list .monaco-list-row', { hasText: match }).first();
    await row.waitFor({ timeout: 15_000 });
    await row.click();
    // The palette closes, or turns into the input box the command opens.
    await poll(
      `the command palette to run '${title}'`,
      async () => {
        if (!(await input.isVisible())) return true;
        return (await input.inputValue()).startsWith('>') ? undefined : true;
      },
      10_000,
    );
  }

  /** Answers the input box a command opened: checks its prefilled value (when given), types `value` (when given) and presses Enter. */
  async answerInput(options: { expect?: string; value?: string; password?: boolean }): Promise<void> {
    const input = this.page.locator('.quick-input-widget input');
    await poll(
      'an input box',
      async () => {
        if (!(await input.isVisible())) return undefined;
        if (options.password !== undefined && ((await input.getAttribute('type')) === 'password') !== options.password) return undefined;
        if (options.expect !== undefined && (await input.inputValue()) !== options.expect) return undefined;
        return true;
      },
      10_000,
    );
    if (options.value !== undefined) await input.fill(options.value);
    await this.page.keyboard.press('Enter');
  }

  /** Our status bar item. */
  statusItem(): Locator {
    return this.page.locator(STATUS_ITEM);
  }

  /** Waits until our status bar item's text matches `pattern`; returns the text. */
  async waitForStatus(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
    return poll(
      `the 10xgraph status bar item to read ${pattern}`,
      async () => {
        const item = this.statusItem();
        if ((await item.count()) === 0) return undefined;
        const text = (await item.innerText()).trim();
        return pattern.test(text) ? text : undefined;
      },
      timeoutMs,
    );
  }

  /** Hovers the status item and returns its tooltip's text. */
  async statusTooltip(): Promise<string> {
    const hover = this.page.locator('.workbench-hover').filter({ hasText: '10xgraph' }).first();
    return this.hoverText('the status bar tooltip', hover, async () => {
      // A hover shows on entering the item: leave it first, in case the mouse is already there.
      await this.page.mouse.move(0, 0);
      await this.statusItem().hover();
    });
  }

  /** The content frame of the (one) webview panel. */
  webview(): FrameLocator {
    return this.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  }
}
