/**
 * The browser example's page (examples/browser) in Chromium, used the way a person uses it: the
 * settings, the prompt, the Send button; what they read back is the conversation and the alert.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { poll } from '../../support/poll';
import { ROOT } from '../../support/run';

/** Screenshots go beside the e2e suite's. */
export const SCREENSHOTS = join(ROOT, 'test-results', 'e2e', 'browser');

/** The geolocation the browser context reports: far from the quick start's demo location. */
export const BROWSER_LOCATION = { latitude: 59.3293, longitude: 18.0686, accuracy: 12 };
/** What the test writes on the clipboard before a conversation. */
export const CLIPBOARD_TEXT = 'Clipboard from the browser test: call Ana at 15:00.';
/** How the page words the emulated position in an answer. */
export const LOCATION_ANSWER = `get_user_location: ${BROWSER_LOCATION.latitude}, ${BROWSER_LOCATION.longitude} (within ${BROWSER_LOCATION.accuracy} m)`;
/** How the page words the two notes a search for coffee finds. */
export const COFFEE_ANSWER =
  'search_local_database: 2 notes match “coffee”: Coffee beans (Order 1 kg of Ethiopian coffee beans from the roastery.); Coffee with Ana (Meet Ana at the corner café on Thursday to talk about the launch.)';
/** The prompt that makes the quick start's model call all three remote tools at once. */
export const ALL_THREE = "Where am I, what's on my clipboard, and search the database for coffee";

export type Transport = 'invoke' | 'http' | 'ws';
export const TRANSPORTS: Array<{ transport: Transport; label: string }> = [
  { transport: 'invoke', label: 'invoke' },
  { transport: 'http', label: 'the HTTP stream' },
  { transport: 'ws', label: 'the WebSocket' },
];

/** One conversation as the page shows it. */
export interface TurnView {
  state: string;
  /** The model's final text (the last answer of the turn). */
  answer: string;
  /** The turn's error line, if it failed. */
  error: string;
  /** The code of its error (`token_missing`, `origin_not_allowed`, `server_stopped`, …), '' when none. */
  errorCode: string;
  /** The steps listed in the turn. */
  events: string[];
  /** The thread the server ran the message on ('' when none was named). */
  thread: string;
  /** Whether its tools answered: `ok`, `some-failed` or `all-failed` ('' unless it finished). */
  tools: string;
  /** The turn's outcome label ('answered', 'answered, but the tool failed', 'failed', …). */
  outcome: string;
}

/** How the browser context is set up. */
export interface ContextOptions {
  /** Permissions granted to every origin. Default: geolocation and the clipboard. */
  permissions?: string[];
  /** Written to the clipboard once the page is open (needs clipboard-write). */
  clipboard?: string;
  /** The window's size. Default 1280 × 860. */
  viewport?: { width: number; height: number };
}

/** The example page in its own browser context. */
export class ExamplePage {
  /** What the page's console reported as errors, and the page's uncaught errors, as they came. */
  readonly consoleErrors: string[] = [];
  /** The requests the browser reports as failed (`POST <url>: net::ERR_ABORTED`), as they came. */
  readonly failedRequests: string[] = [];

  private constructor(
    private readonly context: BrowserContext,
    readonly page: Page,
  ) {
    page.on('console', (message) => {
      if (message.type() === 'error') this.consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => this.consoleErrors.push(`uncaught: ${error.message}`));
    page.on('requestfailed', (request) => this.failedRequests.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText ?? 'failed'}`));
  }

  /** Opens the page at `url` in a fresh context with the emulated location and the given permissions, and waits for its database. */
  static async open(browser: Browser, url: string, options: ContextOptions = {}): Promise<ExamplePage> {
    const permissions = options.permissions ?? ['geolocation', 'clipboard-read', 'clipboard-write'];
    const context = await browser.newContext({ geolocation: BROWSER_LOCATION, permissions, viewport: options.viewport ?? { width: 1280, height: 860 } });
    try {
      const page = await context.newPage();
      const example = new ExamplePage(context, page);
      await page.goto(url);
      await page.locator('#database-status[data-state="ready"]').waitFor({ timeout: 30_000 });
      if (options.clipboard !== undefined) {
        await page.bringToFront();
        await page.evaluate((text) => navigator.clipboard.writeText(text), options.clipboard);
      }
      return example;
    } catch (error) {
      await context.close();
      throw error;
    }
  }

  /** The page's origin. */
  get origin(): string {
    return new URL(this.page.url()).origin;
  }

  /** Fills the settings as a person would; unchecks the tools named in `without`. */
  async configure(settings: { server: string; token?: string; transport?: Transport; without?: string[] }): Promise<void> {
    await this.page.fill('#server-url', settings.server);
    await this.page.fill('#token', settings.token ?? '');
    await this.page.selectOption('#transport', settings.transport ?? 'invoke');
    for (const name of ['get_user_location', 'read_clipboard', 'search_local_database']) {
      await this.page.setChecked(`#handler-${name}`, !(settings.without ?? []).includes(name));
    }
  }

  /** The server status line once the page's check has settled. */
  async serverStatus(): Promise<{ state: string; code: string; text: string }> {
    const status = this.page.locator('#server-status');
    await this.page.locator('#server-status:not([data-state="checking"])').waitFor({ timeout: 15_000 });
    return { state: (await status.getAttribute('data-state')) ?? '', code: (await status.getAttribute('data-code')) ?? '', text: await status.innerText() };
  }

  /** Clicks "Check the server" and returns the status line once that check has settled. */
  async checkServer(): Promise<{ state: string; code: string; text: string }> {
    await this.page.click('#check-server');
    return this.serverStatus();
  }

  /**
   * Sends `prompt` and waits until its conversation is done or failed; a conversation still
   * running after `timeoutMs` fails the test (the page must never hang).
   */
  async converse(prompt: string, timeoutMs = 30_000): Promise<TurnView> {
    const turns = this.page.locator('#conversation .turn');
    const index = await turns.count();
    await this.page.fill('#prompt', prompt);
    await this.page.click('#send');
    const turn = turns.nth(index);
    const state = await poll(
      `the conversation '${prompt}' to finish in the page`,
      async () => {
        const value = await turn.getAttribute('data-state', { timeout: 1_000 }).catch(() => null);
        return value !== null && value !== 'running' ? value : undefined;
      },
      timeoutMs,
    );
    // The Send button comes back once the conversation is over.
    await this.page.locator('#send:not([disabled])').waitFor({ timeout: 5_000 });
    const answers = await turn.locator('.answer').allInnerTexts();
    return {
      state,
      answer: answers[answers.length - 1] ?? '',
      error: (await turn.locator('.turn-error').allInnerTexts()).join('\n'),
      errorCode: (await turn.locator('.turn-error').count()) > 0 ? ((await turn.locator('.turn-error').getAttribute('data-code')) ?? '') : '',
      events: await turn.locator('.events li').allInnerTexts(),
      thread: (await turn.getAttribute('data-thread')) ?? '',
      tools: (await turn.getAttribute('data-tools')) ?? '',
      outcome: await turn.locator('.outcome').innerText(),
    };
  }

  /** How many times `text` is shown in the page (an error must be shown once, in one place). */
  async countShown(text: string): Promise<number> {
    const shown = await this.page.locator('body').innerText();
    return shown.split(text).length - 1;
  }

  /** Whether the page scrolls sideways (its content wider than the window). */
  async scrollsSideways(): Promise<boolean> {
    return this.page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
  }

  /** Saves a screenshot of the window (or the whole page) as test-results/e2e/browser/<name>.png. */
  async screenshot(name: string, options: { fullPage?: boolean } = {}): Promise<void> {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await this.page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: options.fullPage ?? false });
  }

  /** Closes the page and its context. */
  async close(): Promise<void> {
    await this.context.close();
  }
}
