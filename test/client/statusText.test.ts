import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ageOf, describeStatus } from '../../client/src/statusText';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const URL = 'http://127.0.0.1:8000';

test('connected: the node count in the bar; URL, age and version in the tooltip; a click refetches', () => {
  const view = describeStatus({ url: URL, state: 'connected', nodeCount: 3, fetchedAt: NOW - 12_000, version: '0.1.0' }, NOW);
  assert.equal(view.text, '$(type-hierarchy) 10xgraph: 3 nodes');
  assert.match(view.tooltip, /connected to http:\/\/127\.0\.0\.1:8000: 3 nodes, fetched 12 s ago \(10xgraph 0\.1\.0\)/);
  assert.equal(view.action, 'refresh');
  assert.equal(view.severity, 'none');
  assert.equal(describeStatus({ url: URL, state: 'connected', nodeCount: 1 }, NOW).text, '$(type-hierarchy) 10xgraph: 1 node');
});

test('a version mismatch warns, in the bar and the tooltip', () => {
  const view = describeStatus({ url: URL, state: 'connected', nodeCount: 2, version: '9.9.9', versionMismatch: true }, NOW);
  assert.equal(view.text, '$(warning) 10xgraph: 2 nodes');
  assert.equal(view.severity, 'warning');
  assert.match(view.tooltip, /runs 10xgraph 9\.9\.9, which differs from the rule set of this extension/);
});

test('offline says why and how to retry', () => {
  const view = describeStatus({ url: URL, state: 'offline', error: 'graph: offline — nothing is listening at http://127.0.0.1:8000' }, NOW);
  assert.equal(view.text, '$(debug-disconnect) 10xgraph: offline');
  assert.match(view.tooltip, /nothing is listening at/);
  assert.match(view.tooltip, /Start the server \(`10xgraph api`\)/);
  assert.equal(view.action, 'refresh');
  assert.equal(view.severity, 'warning');
});

test('disabled and untrusted open the settings and say node names are not checked', () => {
  const disabled = describeStatus({ url: URL, state: 'disabled' }, NOW);
  assert.equal(disabled.text, '$(circle-slash) 10xgraph: graph off');
  assert.equal(disabled.action, 'settings');
  const untrusted = describeStatus({ url: URL, state: 'untrusted' }, NOW);
  assert.equal(untrusted.text, '$(shield) 10xgraph: untrusted');
  assert.match(untrusted.tooltip, /no server is contacted and no graph is fetched/);
  assert.equal(untrusted.action, 'settings');
});

test('markdown in a URL or a reason is escaped, never rendered', () => {
  const view = describeStatus({ url: 'http://x/[a](b)', state: 'offline', error: '**bold**' }, NOW);
  assert.match(view.tooltip, /http:\/\/x\/\\\[a\\\]\\\(b\\\)/);
  assert.match(view.tooltip, /\\\*\\\*bold\\\*\\\*/);
});

test('ages read as people say them', () => {
  assert.equal(ageOf(NOW - 500, NOW), 'just now');
  assert.equal(ageOf(NOW - 45_000, NOW), '45 s ago');
  assert.equal(ageOf(NOW - 3 * 60_000, NOW), '3 min ago');
  assert.equal(ageOf(NOW - 2 * 3_600_000, NOW), '2 h ago');
  assert.equal(ageOf(undefined, NOW), undefined);
  assert.equal(ageOf('not a date', NOW), undefined);
});
