import { type Rule, Kind, NONE, describeType, openBrace, shown } from '../context';
import { isFalsy } from '../settings';

/** `auth-invalid`: `auth` is none of the forms the server takes: empty, a `"jwt"` string, or `{"method": "custom", "path"}`. */
export const authInvalid: Rule = {
  code: 'auth-invalid',
  check({ tree, root, report }) {
    const auth = tree.get(root, 'auth');
    if (auth === NONE || isFalsy(tree, auth)) return;
    const refuse = 'the server refuses it and does not start';
    if (tree.kind[auth] === Kind.String) {
      const text = tree.string(auth);
      // The server looks for the letters "jwt" anywhere in the string, in lower case.
      if (text.includes('jwt')) return;
      const jwtish = text.toLowerCase().includes('jwt');
      report({
        code: 'auth-invalid',
        message: `"auth" must be "jwt" or an object {"method": "custom", "path": "module:attribute"}, not "${shown(text)}"${jwtish ? ' (the server matches "jwt" in lower case only)' : ''}: ${refuse}.`,
        node: auth,
        ...(jwtish ? { fixes: [{ title: 'Change to "jwt"', edits: [{ ...tree.span(auth), newText: '"jwt"' }], isPreferred: true, safe: true }] } : {}),
      });
      return;
    }
    if (tree.kind[auth] !== Kind.Object) {
      report({ code: 'auth-invalid', message: `"auth" must be "jwt", an object {"method": "custom", "path"} or empty, not ${describeType(tree, auth)}: ${refuse}.`, node: auth });
      return;
    }
    const method = tree.get(auth, 'method');
    const path = tree.get(auth, 'path');
    if (method === NONE || path === NONE || isFalsy(tree, method) || isFalsy(tree, path)) {
      const lacking = [method === NONE || isFalsy(tree, method) ? '"method"' : '', path === NONE || isFalsy(tree, path) ? '"path"' : ''].filter(Boolean).join(' and ');
      report({ code: 'auth-invalid', message: `"auth" needs both "method" and "path" (it lacks ${lacking}): ${refuse}.`, node: openBrace(tree, auth) });
      return;
    }
    if (!(tree.kind[method] === Kind.String && tree.stringEquals(method, 'custom'))) {
      const jwt = tree.kind[method] === Kind.String && tree.string(method).toLowerCase() === 'jwt';
      report({
        code: 'auth-invalid',
        message: `"auth.method" must be "custom"${jwt ? ' (for JWT write "auth": "jwt", not an object)' : ''}, not ${shown(tree.text.slice(tree.start[method], tree.end[method]), 40)}: ${refuse}.`,
        node: method,
      });
    }
  },
};
