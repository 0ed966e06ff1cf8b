// auth-invalid: auth is empty (no authentication), a string holding "jwt", or
// {"method": "custom", "path": "module:attribute"}; anything else stops the server.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFix, configFiles, configWith, expectNone, expectProblems } from './helpers';

const CODE = 'auth-invalid';
const JWT_SET = { files: configFiles({ environment: ['JWT_SECRET_KEY', 'JWT_ALGORITHM'] }) };

describe('auth-invalid', () => {
  test('"JWT" is refused (the server looks for "jwt" in lower case), with a safe fix to "jwt"', () => {
    const { text, problems } = expectProblems(configWith('"auth": ⟦"JWT"⟧'), CODE, {
      ...JWT_SET,
      only: true,
      messages: ['"auth"', '"jwt"', 'not "JWT"', 'lower case', 'does not start'],
    });
    const [fix] = problems[0].fixes!;
    assert.equal(fix.title, 'Change to "jwt"');
    assert.equal(fix.safe, true);
    assert.equal(fix.isPreferred, true);
    assert.equal(checkFix(text, problems[0], 0, JWT_SET), configWith('"auth": "jwt"'));
  });

  test('a string holding "jwt" anywhere is accepted as JWT', () => {
    for (const value of ['"jwt"', '"nojwt"', '"jwt-bearer"']) expectNone(configWith(`"auth": ${value}`), CODE);
  });

  test('another string is refused, without a fix', () => {
    const { problems } = expectProblems(configWith('"auth": ⟦"basic"⟧'), CODE, { only: true, messages: ['not "basic"'] });
    assert.equal(problems[0].fixes, undefined);
  });

  test('an empty auth means no authentication', () => {
    for (const value of ['""', 'null', 'false', '{}', '0', '[]']) expectNone(configWith(`"auth": ${value}`), CODE);
  });

  test('a value of another type is refused', () => {
    for (const value of ['5', 'true', '["jwt"]']) expectProblems(configWith(`"auth": ⟦${value}⟧`), CODE, { messages: ['"auth"', 'empty'] });
  });

  test('an object with method "jwt" is refused on the method, saying how JWT is written', () => {
    expectProblems(configWith('"auth": {"method": ⟦"jwt"⟧, "path": "auth.custom:MyAuth"}'), CODE, { only: true, messages: ['"auth.method"', '"custom"', 'write "auth": "jwt"'] });
  });

  test('an object lacking method or path is refused on its `{`, naming what it lacks', () => {
    expectProblems(configWith('"auth": ⟦{⟧"method": "custom"}'), CODE, { only: true, messages: ['lacks "path"'] });
    expectProblems(configWith('"auth": ⟦{⟧"path": "auth.custom:MyAuth"}'), CODE, { only: true, messages: ['lacks "method"'] });
    expectProblems(configWith('"auth": ⟦{⟧"method": "", "path": null}'), CODE, { messages: ['"method" and "path"'] });
  });

  test('{"method": "custom", "path": "module:attribute"} is accepted', () => {
    expectNone(configWith('"auth": {"method": "custom", "path": "auth.custom:MyAuth"}'), CODE);
  });

  test('a repeated auth is judged by its last value', () => {
    expectNone(configWith('"auth": "basic", "auth": "jwt"'), CODE);
  });
});
