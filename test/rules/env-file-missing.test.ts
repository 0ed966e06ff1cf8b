// env-file-missing: the env file the config names does not exist beside it (the server skips it
// silently). Judged only when the front end can tell whether a file exists.
import { describe, test } from 'node:test';
import { configFiles, configWith, expectNone, expectProblems } from './helpers';

const CODE = 'env-file-missing';

describe('env-file-missing', () => {
  test('a missing env file is a warning on the value, naming the file', () => {
    expectProblems(configWith('"env": ⟦".env"⟧'), CODE, { only: true, files: configFiles({ exists: [] }), messages: ['".env"', 'does not exist', 'skips it'] });
  });

  test('an existing env file is fine, and so is a path in a folder', () => {
    expectNone(configWith('"env": ".env"'), CODE, { files: configFiles({ exists: ['.env'] }) });
    expectNone(configWith('"env": "config/dev.env"'), CODE, { files: configFiles({ exists: ['config/dev.env'] }) });
    expectProblems(configWith('"env": ⟦"config/dev.env"⟧'), CODE, { files: configFiles({ exists: ['dev.env'] }) });
  });

  test('not judged when the front end cannot tell whether a file exists', () => {
    expectNone(configWith('"env": ".env"'), CODE);
    expectNone(configWith('"env": ".env"'), CODE, { files: configFiles({ environment: [] }) });
  });

  test('no env, or an empty one, names no file', () => {
    const files = configFiles({ exists: [] });
    for (const members of ['"env": ""', '"env": null', '"remote_tools": []']) expectNone(configWith(members), CODE, { files });
  });

  test('an env that is not a string is setting-wrong-type only', () => {
    expectNone(configWith('"env": 5'), CODE, { files: configFiles({ exists: [] }) });
  });
});
