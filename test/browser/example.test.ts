/**
 * The browser example (examples/browser) in Debian's Chromium against the real `10xgraph api`
 * on the quick start: the page on one loopback origin, the server on another. The browser's own
 * geolocation (emulated by the context, permission granted), clipboard (permission granted, text
 * written first) and the page's SQLite answer the remote tools through `invoke`, the HTTP stream
 * and the WebSocket; the model's final answer must carry what the browser gave. Then tokens and
 * origins: allowed, refused by the browser, and a token that never reaches the server's log.
 *
 * Skipped, with the command that installs it, where Chromium is missing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { bundlePage, startPageServer, type PageServer } from '../../examples/browser/serve';
import { poll, within } from '../support/poll';
import { ROOT } from '../support/run';
import { ApiProcess } from './support/apiProcess';
import { findChromium, launchChromium } from './support/chromium';
import { ALL_THREE, BROWSER_LOCATION, CLIPBOARD_TEXT, ExamplePage, TRANSPORTS, type TurnView } from './support/examplePage';

const chromium = findChromium();

/** What the final answer must hold when all three tools answered from the browser. */
function assertAllThreeAnswered(turn: TurnView): void {
  assert.equal(turn.state, 'done', `the conversation finished without error (${turn.error || turn.alert})`);
  assert.match(
    turn.answer,
    new RegExp(`get_user_location: \\{"latitude":${BROWSER_LOCATION.latitude},"longitude":${BROWSER_LOCATION.longitude},"accuracy_m":${BROWSER_LOCATION.accuracy}\\}`),
  );
  assert.ok(turn.answer.includes(`read_clipboard: ${CLIPBOARD_TEXT}`), `the clipboard text is in the answer: ${turn.answer}`);
  assert.match(turn.answer, /search_local_database: \{"query":"coffee","count":2,"matches":\[\{"id":1,"title":"Coffee beans",.*\{"id":3,"title":"Coffee with Ana",/);
  for (const name of ['get_user_location', 'read_clipboard', 'search_local_database']) {
    assert.ok(turn.events.includes(`The server hands ${name} to this page`), `${name} was handed to the page: ${turn.events.join(' | ')}`);
  }
  assert.equal(turn.alert, '', 'no error is shown');
}

describe('the browser example in Chromium', { timeout: 300_000 }, () => {
  if (chromium.path === undefined) {
    // Reported as a skipped test with the reason, which names the command that installs Chromium.
    test('the browser scenarios', { skip: chromium.reason }, () => {});
    return;
  }
  const chromiumPath = chromium.path;
  let browser: Browser;
  let pages: PageServer;
  let apiUrl = '';

  before(async () => {
    pages = await startPageServer(await bundlePage(), { apiUrl: () => apiUrl });
    browser = await launchChromium(chromiumPath);
  });

  after(async () => {
    await browser?.close();
    await pages?.close();
  });

  test('`npm run example:browser` serves the page next to 10xgraph api, prints both URLs, and Ctrl+C stops both', async () => {
    // The script behind the npm script (the build step before it has run: dist/cli.js exists).
    const child = spawn(process.execPath, ['--import', 'tsx', join('examples', 'browser', 'serve.ts'), '--port', '0', '--api-port', '0'], {
      cwd: ROOT,
      env: Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('TENXGRAPH_'))),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const { serverUrl, pageUrl } = await poll(
        'both URLs to be printed',
        () => {
          const server = /10xgraph api \(the quick-start graph\): (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
          const page = /Browser example, on a second origin: +(http:\/\/localhost:\d+\/)/.exec(output)?.[1];
          return server && page ? { serverUrl: server, pageUrl: page } : undefined;
        },
        60_000,
      );
      assert.match(output, /No token: the server allows any loopback origin\./);
      const config = (await (await fetch(new URL('config.json', pageUrl.replace('localhost', '127.0.0.1')))).json()) as { apiUrl: string };
      assert.equal(config.apiUrl, serverUrl, 'the page is told where the server is');
      const page = await ExamplePage.open(browser, pageUrl, { clipboard: CLIPBOARD_TEXT });
      try {
        assert.equal((await page.serverStatus()).state, 'connected');
        await page.page.selectOption('#transport', 'ws');
        await page.page.click('button[data-prompt^="Where am I, what"]');
        // The answer is drawn before the turn is marked done: wait for the turn to leave 'running'.
        const turn = page.page.locator('#conversation .turn').first();
        await page.page.locator('#conversation .turn:not([data-state="running"])').first().waitFor({ timeout: 30_000 });
        assert.equal(await turn.getAttribute('data-state'), 'done', await turn.innerText());
        assert.ok((await turn.locator('.answer').innerText()).includes(`read_clipboard: ${CLIPBOARD_TEXT}`));
        await page.screenshot('00-npm-run-example-browser');
      } finally {
        await page.close();
      }
      child.kill('SIGINT');
      assert.equal(await within(exited, 15_000), 0, `the command stops cleanly on Ctrl+C:\n${output}`);
      await poll(
        '10xgraph api to be stopped too',
        async () => {
          try {
            await fetch(`${serverUrl}/ping`);
            return undefined;
          } catch {
            return true;
          }
        },
        10_000,
      );
    } finally {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
  });

  describe('without a token (any loopback origin allowed)', () => {
    let api: ApiProcess;
    before(async () => {
      api = await ApiProcess.start();
      apiUrl = api.url;
    });
    after(() => api?.stop());

    test('the page is served on another origin than the API, and finds the server named in its config', async () => {
      const page = await ExamplePage.open(browser, pages.url);
      try {
        assert.notEqual(page.origin, api.origin);
        assert.equal(await page.page.inputValue('#server-url'), api.url);
        assert.deepEqual(await page.serverStatus(), { state: 'connected', text: `Connected to ${api.url}.` });
        const rows = await page.page.locator('#notes-rows tr').count();
        assert.equal(rows, 5, 'the page shows the five notes of its SQLite database');
      } finally {
        await page.close();
      }
    });

    for (const { transport, label } of TRANSPORTS) {
      test(`all three remote tools through ${label}: the answer holds the browser's coordinates, the clipboard text and the database rows`, async () => {
        const page = await ExamplePage.open(browser, pages.url, { clipboard: CLIPBOARD_TEXT });
        try {
          await page.configure({ server: api.url, transport });
          const turn = await page.converse(ALL_THREE);
          await page.screenshot(`01-no-token-${transport}`);
          assertAllThreeAnswered(turn);
        } finally {
          await page.close();
        }
      });
    }

    test('one tool at a time, from the suggestion buttons', async () => {
      const page = await ExamplePage.open(browser, pages.url, { clipboard: CLIPBOARD_TEXT });
      try {
        await page.configure({ server: api.url, transport: 'ws' });
        const location = await page.converse('Where am I right now?');
        assert.equal(location.state, 'done');
        assert.equal(
          location.answer,
          `Here is what the tools returned:\nget_user_location: {"latitude":${BROWSER_LOCATION.latitude},"longitude":${BROWSER_LOCATION.longitude},"accuracy_m":${BROWSER_LOCATION.accuracy}}`,
        );
        const clipboard = await page.converse("What's on my clipboard?");
        assert.equal(clipboard.answer, `Here is what the tools returned:\nread_clipboard: ${CLIPBOARD_TEXT}`);
        const search = await page.converse('Search the database for dentist');
        assert.equal(
          search.answer,
          'Here is what the tools returned:\nsearch_local_database: {"query":"dentist","count":1,"matches":[{"id":2,"title":"Dentist","body":"Appointment on Tuesday at 9:30."}]}',
        );
        await page.screenshot('02-one-tool-at-a-time');
      } finally {
        await page.close();
      }
    });
  });

  describe("with a token, and the page's origin allowed", () => {
    const token = `tok-${randomBytes(18).toString('hex')}`;
    let api: ApiProcess;
    let allowedOrigin = '';
    before(async () => {
      allowedOrigin = new URL(pages.url).origin;
      // At debug level, where the server logs the most about each request.
      api = await ApiProcess.start({ token, corsOrigins: [allowedOrigin], args: ['--log-level', 'debug'] });
      apiUrl = api.url;
    });
    after(() => api?.stop());

    test("without the token the page shows the server's refusal and says where the token goes", async () => {
      const page = await ExamplePage.open(browser, pages.url, { clipboard: CLIPBOARD_TEXT });
      try {
        await page.configure({ server: api.url, transport: 'invoke' });
        const turn = await page.converse(ALL_THREE);
        await page.screenshot('03-token-missing');
        assert.equal(turn.state, 'error');
        assert.match(turn.error, /refused the request \(401 unauthorized\)/);
        assert.match(turn.error, /Token field/);
        assert.equal(turn.alert, turn.error);
      } finally {
        await page.close();
      }
    });

    for (const { transport, label } of TRANSPORTS) {
      test(`with the token, all three remote tools through ${label}`, async () => {
        const page = await ExamplePage.open(browser, pages.url, { clipboard: CLIPBOARD_TEXT });
        try {
          await page.configure({ server: api.url, token, transport });
          const turn = await page.converse(ALL_THREE);
          await page.screenshot(`04-token-${transport}`);
          assertAllThreeAnswered(turn);
        } finally {
          await page.close();
        }
      });
    }

    for (const { transport, label } of TRANSPORTS) {
      test(`a page on an origin that is not allowed is refused by the browser (${label})`, async () => {
        // The same page from 127.0.0.1 instead of localhost: another origin, not on the list.
        const refusedUrl = pages.url.replace('//localhost:', '//127.0.0.1:');
        const page = await ExamplePage.open(browser, refusedUrl, { clipboard: CLIPBOARD_TEXT });
        try {
          assert.notEqual(page.origin, allowedOrigin);
          await page.configure({ server: api.url, token, transport });
          const turn = await page.converse(ALL_THREE);
          await page.screenshot(`05-origin-refused-${transport}`);
          assert.equal(turn.state, 'error');
          assert.ok(turn.error.includes(`refused this page's`), `the page says it was refused: ${turn.error}`);
          assert.ok(turn.error.includes(`--cors-origin ${page.origin}`), `the page says which flag allows it: ${turn.error}`);
          assert.equal(turn.events.length, 0, 'no tool ran: the browser blocked the conversation at its start');
          // The server's log comes through a pipe of its own, not with the answer the page saw.
          await poll('the server to log the refused origin', () => api.output.includes(page.origin), 10_000).catch(() => undefined);
          assert.ok(api.output.includes(page.origin), `the server logged the refused origin:\n${api.output}`);
          const status = await page.serverStatus();
          assert.equal(status.state, 'offline');
          assert.ok(status.text.includes(`refused this page's origin ${page.origin}`), `the status line says why, in HTTP terms: ${status.text}`);
        } finally {
          await page.close();
        }
      });
    }

    test("the token never appears in the server's log", () => {
      assert.ok(api.output.includes('Listening on'), 'the log was captured');
      assert.ok(!api.output.includes(token), `the token leaked into the log:\n${api.output}`);
    });
  });
});
