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
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { bundlePage, startPageServer, type PageServer } from '../../examples/browser/serve';
import { poll, within } from '../support/poll';
import { ROOT } from '../support/run';
import { ApiProcess } from './support/apiProcess';
import { findChromium, launchChromium } from './support/chromium';
import { ALL_THREE, CLIPBOARD_TEXT, COFFEE_ANSWER, ExamplePage, LOCATION_ANSWER, TRANSPORTS, type TurnView } from './support/examplePage';

const chromium = findChromium();

/** What the final answer must hold when all three tools answered from the browser. */
function assertAllThreeAnswered(turn: TurnView): void {
  assert.equal(turn.state, 'done', `the conversation finished without error (${turn.error})`);
  assert.equal(turn.tools, 'ok');
  assert.ok(turn.answer.includes(LOCATION_ANSWER), `the browser's position is in the answer: ${turn.answer}`);
  assert.ok(turn.answer.includes(`read_clipboard: ${CLIPBOARD_TEXT}`), `the clipboard text is in the answer: ${turn.answer}`);
  assert.ok(turn.answer.includes(COFFEE_ANSWER), `the database rows are in the answer: ${turn.answer}`);
  assert.ok(!turn.answer.includes('{"'), `the answer is words, not JSON: ${turn.answer}`);
  for (const name of ['get_user_location', 'read_clipboard', 'search_local_database']) {
    assert.ok(turn.events.includes(`The server hands ${name} to this page`), `${name} was handed to the page: ${turn.events.join(' | ')}`);
  }
  assert.equal(turn.error, '', 'no error is shown');
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

  for (const { flag, other, name } of [
    { flag: '--api-port', other: '--port', name: '10xgraph api' },
    { flag: '--port', other: '--api-port', name: 'the page' },
  ]) {
    test(`\`npm run example:browser\` with a port in use for ${name} says so once, naming ${flag}`, async () => {
      const holder = createServer();
      await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
      const taken = (holder.address() as AddressInfo).port;
      try {
        const child = spawn(process.execPath, ['--import', 'tsx', join('examples', 'browser', 'serve.ts'), flag, String(taken), other, '0'], {
          cwd: ROOT,
          env: Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('TENXGRAPH_'))),
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
        child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
        const code = await within(new Promise<number | null>((resolve) => child.once('exit', (exit) => resolve(exit))), 30_000);
        assert.equal(code, 1, output);
        assert.equal(output.split('is in use').length - 1, 1, `the clash is told once:\n${output}`);
        assert.ok(output.includes(`port ${taken} (for ${name}) is in use: pass another with ${flag} N.`), output);
      } finally {
        await new Promise((resolve) => holder.close(resolve));
      }
    });
  }

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
        assert.deepEqual(await page.serverStatus(), { state: 'connected', code: 'connected', text: `Connected to ${api.url}.` });
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
        assert.equal(location.answer, `Here is what the tools returned:\n${LOCATION_ANSWER}`);
        const clipboard = await page.converse("What's on my clipboard?");
        assert.equal(clipboard.answer, `Here is what the tools returned:\nread_clipboard: ${CLIPBOARD_TEXT}`);
        const search = await page.converse('Search the database for dentist');
        assert.equal(search.answer, 'Here is what the tools returned:\nsearch_local_database: 1 note matches “dentist”: Dentist (Appointment on Tuesday at 9:30.)');
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

    /**
     * A missing token, a wrong one and a refused origin: the check and a message through each
     * transport say which, each in its own words, once in the page. The browser hides a refused
     * origin's 403 and every refused WebSocket upgrade from the page; it tells them apart anyway.
     */
    const refusals = [
      {
        name: 'the token missing',
        code: 'token_missing',
        token: () => '',
        refused: false,
        text: () => `The 10xgraph server at ${api.url} needs a token (401 unauthorized): paste its TENXGRAPH_TOKEN into the Token field.`,
      },
      {
        name: 'a wrong token',
        code: 'token_wrong',
        token: () => `${token}-not`,
        refused: false,
        text: () => `The 10xgraph server at ${api.url} refused the token in the Token field (401 unauthorized): paste the TENXGRAPH_TOKEN it was started with.`,
      },
      {
        name: 'an origin that is not allowed',
        code: 'origin_not_allowed',
        token: () => token,
        refused: true,
        text: () =>
          `The 10xgraph server at ${api.url} refuses this page's origin ${refusedOrigin()} (403 ORIGIN_NOT_ALLOWED): start 10xgraph api with --cors-origin ${refusedOrigin()}.`,
      },
    ];
    // The same page from 127.0.0.1 instead of localhost: another origin, not on the list.
    const refusedUrl = () => pages.url.replace('//localhost:', '//127.0.0.1:');
    const refusedOrigin = () => new URL(refusedUrl()).origin;

    for (const refusal of refusals) {
      for (const { transport, label } of TRANSPORTS) {
        test(`${refusal.name}: the check and a message through ${label} say so, once (${refusal.code})`, async () => {
          const page = await ExamplePage.open(browser, refusal.refused ? refusedUrl() : pages.url, { clipboard: CLIPBOARD_TEXT });
          try {
            assert.equal(page.origin === allowedOrigin, !refusal.refused);
            await page.configure({ server: api.url, token: refusal.token(), transport });
            const status = await page.checkServer();
            assert.deepEqual(status, { state: 'offline', code: refusal.code, text: refusal.text() }, 'the check says why');
            const turn = await page.converse(ALL_THREE);
            await page.screenshot(`05-${refusal.code}-${transport}`);
            assert.equal(turn.state, 'error');
            assert.equal(turn.errorCode, refusal.code);
            assert.equal(turn.error, refusal.text());
            assert.equal(turn.events.length, 0, 'no tool ran: the server refused the message at its start');
            assert.equal(await page.countShown(refusal.text()), 1, 'the error is shown once, in the turn');
            assert.deepEqual(await page.serverStatus(), { state: 'offline', code: 'see_conversation', text: 'Not connected: the conversation says why.' });
            if (refusal.refused) {
              // The server's log comes through a pipe of its own, not with the answer the page saw.
              await poll('the server to log the refused origin', () => api.output.includes(page.origin), 10_000).catch(() => undefined);
              assert.ok(api.output.includes(page.origin), `the server logged the refused origin:\n${api.output}`);
            }
          } finally {
            await page.close();
          }
        });
      }
    }

    test('the three refusals are three different sentences', () => {
      assert.equal(new Set(refusals.map((refusal) => refusal.text())).size, 3);
    });

    test("the token never appears in the server's log", () => {
      assert.ok(api.output.includes('Listening on'), 'the log was captured');
      assert.ok(!api.output.includes(token), `the token leaked into the log:\n${api.output}`);
    });
  });
});
