import type { TextEdit } from './types';
import { NONE, type Tree } from './tree';

/** The indentation of the line `offset` stands on. */
function indentAt(text: string, offset: number): string {
  let start = offset;
  while (start > 0 && text.charCodeAt(start - 1) !== 10 && text.charCodeAt(start - 1) !== 13) start--;
  let end = start;
  while (end < text.length && (text[end] === ' ' || text[end] === '\t')) end++;
  return text.slice(start, end);
}

/** The line break the text uses. */
function eolOf(text: string): string {
  const lf = text.indexOf('\n');
  if (lf < 0) return text.includes('\r') ? '\r' : '\n';
  return lf > 0 && text.charCodeAt(lf - 1) === 13 ? '\r\n' : '\n';
}

/** The indentation unit the text uses (two spaces when it shows none). */
function unitIndent(text: string): string {
  const m = /\n([ \t]+)\S/.exec(text);
  return m ? (m[1].startsWith('\t') ? '\t' : m[1].length >= 4 && m[1].length % 4 === 0 ? '    ' : '  ') : '  ';
}

/** An edit that adds `"key": valueJson` as the last property of `object`, in the object's layout. */
export function insertPropertyEdit(tree: Tree, object: number, key: string, valueJson: string): TextEdit {
  const text = tree.text;
  const member = `${JSON.stringify(key)}: ${valueJson}`;
  const open = tree.start[object];
  const close = tree.end[object] - 1;
  const multiline = /[\r\n]/.test(text.slice(open, close + 1));
  let last = NONE;
  for (let p = tree.first[object]; p !== NONE; p = tree.next[p]) last = p;
  if (last === NONE) {
    if (!multiline) return { offset: open + 1, length: close - open - 1, newText: ` ${member} ` };
    return { offset: open + 1, length: 0, newText: `${eolOf(text)}${indentAt(text, open)}${unitIndent(text)}${member}` };
  }
  const end = tree.end[last];
  if (!multiline) return { offset: end, length: 0, newText: `, ${member}` };
  return { offset: end, length: 0, newText: `,${eolOf(text)}${indentAt(text, tree.start[last])}${member}` };
}

/** An edit that removes `property` from its object and keeps the JSON valid. */
export function removePropertyEdit(tree: Tree, property: number): TextEdit {
  const object = tree.parent[property];
  let previous = NONE;
  for (let p = tree.first[object]; p !== NONE && p !== property; p = tree.next[p]) previous = p;
  const next = tree.next[property];
  if (next !== NONE) return { offset: tree.start[property], length: tree.start[next] - tree.start[property], newText: '' };
  if (previous !== NONE) return { offset: tree.end[previous], length: tree.end[property] - tree.end[previous], newText: '' };
  return { offset: tree.start[property], length: tree.end[property] - tree.start[property], newText: '' };
}
