// nothing-traced: observability is an object, but neither logfire nor langsmith is enabled (as
// Python's bool() reads "enabled"). A warning on the observability key.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { configWith, expectNone, expectProblems } from './helpers';

const CODE = 'nothing-traced';

describe('nothing-traced', () => {
  test('observability with tracing switched off is a warning on its key', () => {
    const { problems } = expectProblems(configWith('⟦"observability"⟧: {"level": "full", "logfire": {"enabled": false}}'), CODE, {
      only: true,
      messages: ['"logfire"', '"langsmith"', 'nothing is traced', '"enabled": true'],
    });
    assert.equal(problems[0].fixes, undefined);
  });

  test('an empty observability, or blocks without enabled, trace nothing', () => {
    expectProblems(configWith('⟦"observability"⟧: {}'), CODE, { only: true });
    expectProblems(configWith('⟦"observability"⟧: {"logfire": {"service_name": "api"}, "langsmith": {"enabled": 0}}'), CODE, { only: true });
  });

  test('one enabled block is enough, and any truthy enabled counts', () => {
    expectNone(configWith('"observability": {"logfire": {"enabled": true}}'), CODE);
    expectNone(configWith('"observability": {"logfire": {"enabled": false}, "langsmith": {"enabled": 1}}'), CODE);
    // Python's bool("false") is True: tracing is on (and setting-invalid says so).
    expectNone(configWith('"observability": {"logfire": {"enabled": "false"}}'), CODE);
  });

  test('no observability, null, or one the server refuses is not judged here', () => {
    expectNone(configWith('"observability": null'), CODE);
    expectNone(configWith('"observability": "x"'), CODE);
    expectNone(configWith('"remote_tools": []'), CODE);
  });
});
