// The server-verdict corpus (test/fixtures/parity): one file per behaviour of the 10xGraph server's
// start-up validation and its edge cases, each with the verdict that server gives (it starts, or it
// refuses to start). `10xgraph audit`, the language server and the start-up of `10xgraph api` must
// all give that verdict: audit exits 1 and the editor shows an error exactly when the server refuses.
// A verdict that depends on the environment the server runs in (`needs-env`) is a warning for audit
// and the editor, which cannot know it, and a refusal for `10xgraph api`, which can.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, runCli } from '../support/run';
import { TestClient, fileUri } from '../support/lspClient';

const DIR = join(__dirname, '..', 'fixtures', 'parity');

type Verdict = 'starts' | 'refuses' | 'needs-env';

/** Each file's verdict, and the server behaviour behind it. */
const VERDICTS: Record<string, { verdict: Verdict; why: string; env?: Record<string, string> }> = {
  'node-name': { verdict: 'starts', why: '`node_name` is the remote tool model’s own name of `node`' },
  'node-and-node-name': { verdict: 'refuses', why: 'both names of one field: `node_name` is then an extra field, refused' },
  'parameters-empty': { verdict: 'starts', why: 'missing type, properties and required are filled in' },
  'parameters-properties-only': { verdict: 'starts', why: 'missing type and required are filled in' },
  'trimmed-duplicate': { verdict: 'refuses', why: 'names are trimmed before the uniqueness check' },
  'untrimmed-node': { verdict: 'starts', why: 'the node is looked up by its trimmed name' },
  'rate-limit-by-users': { verdict: 'refuses', why: 'rate_limit.by must be ip, user or global' },
  'rate-limit-disabled-bad-by': { verdict: 'refuses', why: 'rate_limit is checked even when enabled is false' },
  'rate-limit-numeric-strings': { verdict: 'starts', why: 'int() takes numeric strings and floats; booleans take yes/off words' },
  'rate-limit-half-window': { verdict: 'refuses', why: 'int(0.5) is 0, not a positive integer' },
  'rate-limit-null': { verdict: 'starts', why: 'null means no rate limits' },
  'rate-limit-bad-network': { verdict: 'refuses', why: 'ip_network refuses an octet with a leading zero' },
  'rate-limit-unset-var': { verdict: 'needs-env', why: 'an unresolved ${VAR} in rate_limit.redis is refused', env: { TENXGRAPH_PARITY_REDIS_URL: 'redis://localhost:6379/0' } },
  'websocket-negative': { verdict: 'starts', why: 'websocket is read on each handshake, not at start-up' },
  'websocket-unlimited': { verdict: 'starts', why: '0 and null mean no limit' },
  'auth-custom-no-path': { verdict: 'refuses', why: 'custom auth needs both method and path' },
  'auth-jwt-env-file': { verdict: 'starts', why: 'the env file, loaded first, sets JWT_SECRET_KEY and JWT_ALGORITHM' },
  'auth-jwt-no-env': { verdict: 'needs-env', why: 'jwt needs JWT_SECRET_KEY and JWT_ALGORITHM', env: { JWT_SECRET_KEY: 'k'.repeat(40), JWT_ALGORITHM: 'HS256' } },
  'ag-ui-maybe': { verdict: 'refuses', why: 'ag_ui.enabled must be a boolean or a boolean word' },
  'ag-ui-null': { verdict: 'starts', why: 'null means off' },
  'remote-tool-typo': { verdict: 'starts', why: 'an unknown top-level key is ignored (and every tool with it)' },
  'remote-tools-null': { verdict: 'refuses', why: 'remote_tools must be a list' },
  'authorization-owner': { verdict: 'refuses', why: 'an unknown built-in authorization backend' },
  'authorization-ownership-spaced': { verdict: 'starts', why: 'built-in names are trimmed and lower-cased' },
  'observability-string': { verdict: 'refuses', why: 'a non-object observability block fails its set-up' },
  'observability-bad-level': { verdict: 'starts', why: 'an unknown level falls back to standard with a warning' },
  'test-coverage-word': { verdict: 'starts', why: 'test is read by `10xgraph test` only' },
  'injectq-no-colon': { verdict: 'refuses', why: 'injectq is split at its ":" when loaded' },
  'checkpointer-set': { verdict: 'starts', why: 'checkpointer is never read by the server' },
  'unknown-top-level-key': { verdict: 'starts', why: 'unknown keys are ignored' },
  'env-file-missing': { verdict: 'starts', why: 'a missing env file is skipped' },
};

/** The environment of every run: without the variables the env-dependent files name. */
function baseEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TENXGRAPH_TOKEN: '', ...extra };
  for (const name of ['JWT_SECRET_KEY', 'JWT_ALGORITHM', 'TENXGRAPH_PARITY_REDIS_URL']) if (!(name in extra)) delete env[name];
  return env;
}

/** Starts `10xgraph api` on the file; resolves how it ended: listening (then stopped), or its exit code and output. */
function startApi(file: string, env: NodeJS.ProcessEnv): Promise<{ listening: boolean; code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'api', '--config', file, '--port', '0', '--db', ':memory:'], { cwd: DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let listening = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const onData = (d: string) => {
      output += d;
      if (!listening && output.includes('Listening on ')) {
        listening = true;
        child.kill('SIGTERM');
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ listening, code, output });
    });
  });
}

const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -'.json'.length))
  .sort();

test('every file of the corpus has a verdict, and every verdict a file', () => {
  assert.deepEqual(files, Object.keys(VERDICTS).sort());
});

describe('10xgraph audit gives the server’s verdict', () => {
  for (const name of files) {
    const { verdict, why } = VERDICTS[name];
    test(`${name}: ${verdict} (${why})`, async () => {
      const result = await runCli(['audit', `${name}.json`], { cwd: DIR, env: baseEnv() });
      assert.equal(result.code, verdict === 'refuses' ? 1 : 0, result.stdout + result.stderr);
      if (verdict === 'needs-env') assert.match(result.stdout, /warning \[env-var-not-set\]/);
    });
  }
});

describe('the start-up of 10xgraph api gives the server’s verdict', () => {
  for (const name of files) {
    const { verdict, why, env } = VERDICTS[name];
    test(`${name}: ${verdict} (${why})`, async () => {
      const run = await startApi(`${name}.json`, baseEnv());
      if (verdict === 'starts') assert.ok(run.listening, run.output);
      else {
        assert.equal(run.listening, false, run.output);
        assert.equal(run.code, 1, run.output);
        assert.match(run.output, new RegExp(`${name}\\.json:\\d+:\\d+: error \\[`));
      }
      if (verdict === 'needs-env') {
        const set = await startApi(`${name}.json`, baseEnv(env));
        assert.ok(set.listening, `with the variables set: ${set.output}`);
      }
    });
  }

  test('it names the keys it reads but does not apply, in one line, and loads the env file', async () => {
    const run = await startApi('checkpointer-set.json', baseEnv());
    assert.ok(run.listening, run.output);
    assert.match(run.output, /Not applied by 10xgraph api \(settings of the Python 10xGraph server and its tools\): checkpointer\n/);
    const jwt = await startApi('auth-jwt-env-file.json', baseEnv());
    assert.match(jwt.output, /Loaded 3 variables from the env file/);
    // `auth` is applied: the tokens are verified, and the line says how.
    assert.match(jwt.output, /Authentication: JWT \(HS256\)\n/);
    assert.doesNotMatch(jwt.output, /Not applied by 10xgraph api/);
    assert.doesNotMatch(jwt.output, /a-secret-of-more/);
  });
});

describe('the language server gives the server’s verdict', () => {
  let client: TestClient;
  before(async () => {
    client = await TestClient.start({
      initializationOptions: { settings: { files: ['**/*.json'], server: { enabled: false } } },
      workspaceFolders: [{ uri: fileUri(DIR), name: 'parity' }],
    });
  });
  after(async () => {
    await client.stop();
  });
  for (const name of files) {
    const { verdict, why } = VERDICTS[name];
    test(`${name}: ${verdict} (${why})`, async () => {
      const uri = fileUri(join(DIR, `${name}.json`));
      await client.open(uri, readFileSync(join(DIR, `${name}.json`), 'utf8'));
      const diagnostics = await client.pushed(uri, 1);
      const errors = diagnostics.filter((d) => d.severity === 1);
      assert.equal(errors.length > 0, verdict === 'refuses', JSON.stringify(diagnostics.map((d) => [d.code, d.message])));
      if (verdict === 'needs-env') assert.ok(diagnostics.some((d) => d.code === 'env-var-not-set'));
    });
  }
});
