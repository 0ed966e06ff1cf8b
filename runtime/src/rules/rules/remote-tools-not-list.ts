import { type Rule, Kind, NONE, TOOL_FIELDS, describeType } from '../context';
import type { Fix, TextEdit } from '../types';

/** `remote-tools-not-list`: `remote_tools` must be an array of tools. */
export const remoteToolsNotList: Rule = {
  code: 'remote-tools-not-list',
  check({ tree, root, report }) {
    const list = tree.get(root, 'remote_tools');
    if (list === NONE || tree.kind[list] === Kind.Array) return;
    const fixes: Fix[] = [];
    if (tree.kind[list] === Kind.Object) {
      const properties = tree.children(list);
      const allObjects = properties.length > 0 && properties.every((p) => tree.kind[tree.valueOfProperty(p)] === Kind.Object);
      // A tool's own fields hold strings (or the parameters object): an object whose values are
      // all objects is keyed by name, even when a tool is named like a field.
      const looksLikeOneTool = !allObjects && properties.some((p) => TOOL_FIELDS.some((f) => tree.stringEquals(tree.keyOf(p), f)));
      if (looksLikeOneTool) {
        fixes.push({
          title: 'Wrap the tool in a list: [ … ]',
          edits: [
            { offset: tree.start[list], length: 0, newText: '[' },
            { offset: tree.end[list], length: 0, newText: ']' },
          ],
          isPreferred: true,
          safe: true,
        });
      } else if (allObjects) {
        // An object keyed by tool name: each entry becomes a tool with `name` set. A key that
        // differs from the entry's own `name` would be lost, so that conversion is not safe.
        const edits: TextEdit[] = [{ offset: tree.start[list], length: 1, newText: '[' }];
        let keysKept = true;
        for (const property of properties) {
          const value = tree.valueOfProperty(property);
          edits.push({ offset: tree.start[property], length: tree.start[value] - tree.start[property], newText: '' });
          const ownName = tree.get(value, 'name');
          if (ownName !== NONE) {
            if (!(tree.kind[ownName] === Kind.String && tree.string(ownName) === tree.string(tree.keyOf(property)))) keysKept = false;
          } else {
            edits.push({
              offset: tree.start[value] + 1,
              length: 0,
              newText: `"name": ${JSON.stringify(tree.string(tree.keyOf(property)))}${tree.first[value] !== NONE ? ', ' : ''}`,
            });
          }
        }
        edits.push({ offset: tree.end[list] - 1, length: 1, newText: ']' });
        fixes.push({ title: 'Turn the object keyed by name into a list of tools with "name" set', edits, isPreferred: true, safe: keysKept });
      }
    }
    report({
      code: 'remote-tools-not-list',
      message: `"remote_tools" must be a list of tools ([{"node", "name", "description"}, …]), not ${describeType(tree, list)}.`,
      node: list,
      ...(fixes.length ? { fixes } : {}),
    });
  },
};
