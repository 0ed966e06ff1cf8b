import type { Rule } from '../context';
import { TOOL_FIELDS, valueOf } from '../context';
import type { Fix, TextEdit } from '../types';

/** `remote-tools-not-list`: `remote_tools` must be an array of tools. */
export const remoteToolsNotList: Rule = {
  code: 'remote-tools-not-list',
  check({ root, report }) {
    const list = valueOf(root, 'remote_tools');
    if (!list || list.type === 'array' || root.type !== 'object') return;
    const fixes: Fix[] = [];
    if (list.type === 'object') {
      const properties = list.children!;
      const keys = properties.map((p) => p.children![0].value as string);
      const looksLikeOneTool = keys.some((k) => (TOOL_FIELDS as readonly string[]).includes(k));
      if (looksLikeOneTool) {
        fixes.push({
          title: 'Wrap the tool in a list: [ … ]',
          edits: [
            { offset: list.offset, length: 0, newText: '[' },
            { offset: list.offset + list.length, length: 0, newText: ']' },
          ],
          isPreferred: true,
          safe: true,
        });
      } else if (properties.length > 0 && properties.every((p) => p.children![1]?.type === 'object')) {
        // An object keyed by tool name: each entry becomes a tool with `name` set.
        const edits: TextEdit[] = [{ offset: list.offset, length: 1, newText: '[' }];
        for (const property of properties) {
          const [key, value] = property.children!;
          edits.push({ offset: property.offset, length: value.offset - property.offset, newText: '' });
          if (!valueOf(value, 'name')) {
            edits.push({ offset: value.offset + 1, length: 0, newText: `"name": ${JSON.stringify(key.value)}${value.children!.length ? ', ' : ''}` });
          }
        }
        edits.push({ offset: list.offset + list.length - 1, length: 1, newText: ']' });
        fixes.push({ title: 'Turn the object keyed by name into a list of tools with "name" set', edits, isPreferred: true, safe: true });
      }
    }
    report({
      code: 'remote-tools-not-list',
      message: `"remote_tools" must be a list of tools ([{"node", "name", "description"}, …]), not ${list.type === 'object' ? 'an object' : list.type === 'null' ? 'null' : `a ${list.type}`}.`,
      node: list,
      ...(fixes.length ? { fixes } : {}),
    });
  },
};
