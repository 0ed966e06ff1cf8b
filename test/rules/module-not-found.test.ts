// module-not-found: the Python module of an import path is neither `a/b.py` nor `a/b/__init__.py`
// beside the config. Judged only when the front end can tell whether a file exists.
import { describe, test } from 'node:test';
import { configFiles, configWith, expectNone, expectProblems } from './helpers';

const CODE = 'module-not-found';

describe('module-not-found', () => {
  test('an injectq module that is not beside the file is a warning on the value, naming the files looked for', () => {
    expectProblems(configWith('"injectq": ⟦"graph.deps:container"⟧'), CODE, {
      only: true,
      files: configFiles({ exists: [] }),
      messages: ['"injectq"', '"graph.deps"', 'graph/deps.py', 'graph/deps/__init__.py'],
    });
  });

  test('a module file or a package is found', () => {
    expectNone(configWith('"injectq": "graph.deps:container"'), CODE, { files: configFiles({ exists: ['graph/deps.py'] }) });
    expectNone(configWith('"injectq": "graph.deps:container"'), CODE, { files: configFiles({ exists: ['graph/deps/__init__.py'] }) });
  });

  test('every import path is looked for: store, thread_name_generator, checkpointer, auth.path, an authorization backend', () => {
    const files = configFiles({ exists: [] });
    expectProblems(
      configWith(
        '"store": ⟦"mem:store"⟧, "thread_name_generator": ⟦"names:Gen"⟧, "checkpointer": ⟦"cp:saver"⟧, "auth": {"method": "custom", "path": ⟦"auth.custom:MyAuth"⟧}, "authorization": ⟦"authz:Backend"⟧',
      ),
      CODE,
      { files },
    );
  });

  test('auth.path and an authorization backend may be TypeScript or JavaScript modules beside the file, which 10xgraph api loads', () => {
    for (const file of ['auth.ts', 'auth.mts', 'auth.js', 'auth.mjs']) {
      expectNone(configWith('"auth": {"method": "custom", "path": "auth:authenticate"}, "authorization": "auth:backend"'), CODE, { files: configFiles({ exists: [file] }) });
    }
    // Not the other import paths: only the Python server reads them.
    expectProblems(configWith('"injectq": ⟦"auth:container"⟧'), CODE, { only: true, files: configFiles({ exists: ['auth.ts'] }) });
  });

  test('not judged when the front end cannot tell whether a file exists', () => {
    expectNone(configWith('"injectq": "graph.deps:container"'), CODE);
    expectNone(configWith('"injectq": "graph.deps:container"'), CODE, { files: configFiles({ env: {} }) });
  });

  test('an import path that is invalid, empty, or a built-in authorization is not looked for', () => {
    const files = configFiles({ exists: [] });
    expectNone(configWith('"injectq": "graph/deps:container", "store": "", "authorization": "ownership"'), CODE, { files });
  });
});
