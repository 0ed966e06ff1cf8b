import type { TextEdit } from './types';
import type { JsonNode } from './parse';

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
  return lf > 0 && text.charCodeAt(lf - 1) === 13 ? '\r\n' : '\n';
}

/** An edit that adds `"key": valueJson` as the last property of `object`, in the object's layout. */
export function insertPropertyEdit(text: string, object: JsonNode, key: string, valueJson: string): TextEdit {
  const member = `${JSON.stringify(key)}: ${valueJson}`;
  const children = object.children ?? [];
  const closeOffset = object.offset + object.length - 1;
  const multiline = /[\r\n]/.test(text.slice(object.offset, object.offset + object.length));
  if (children.length === 0) {
    if (!multiline) return { offset: object.offset + 1, length: closeOffset - object.offset - 1, newText: ` ${member} ` };
    const outer = indentAt(text, object.offset);
    return { offset: object.offset + 1, length: 0, newText: `${eolOf(text)}${outer}${unitIndent(text)}${member}` };
  }
  const last = children[children.length - 1];
  const end = last.offset + last.length;
  if (!multiline) return { offset: end, length: 0, newText: `, ${member}` };
  return { offset: end, length: 0, newText: `,${eolOf(text)}${indentAt(text, last.offset)}${member}` };
}

/** The indentation unit the text uses (two spaces when it shows none). */
function unitIndent(text: string): string {
  const m = /\n([ \t]+)\S/.exec(text);
  return m ? (m[1].startsWith('\t') ? '\t' : m[1].length >= 4 && m[1].length % 4 === 0 ? '    ' : '  ') : '  ';
}

/** An edit that removes `property` from its object and keeps the JSON valid. */
export function removePropertyEdit(property: JsonNode): TextEdit {
  const siblings = property.parent!.children!;
  const at = siblings.indexOf(property);
  if (at < siblings.length - 1) {
    const next = siblings[at + 1];
    return { offset: property.offset, length: next.offset - property.offset, newText: '' };
  }
  if (at > 0) {
    const previous = siblings[at - 1];
    const from = previous.offset + previous.length;
    return { offset: from, length: property.offset + property.length - from, newText: '' };
  }
  return { offset: property.offset, length: property.length, newText: '' };
}

/** An edit that replaces the text of `node` with `newText`. */
export function replaceEdit(node: { offset: number; length: number }, newText: string): TextEdit {
  return { offset: node.offset, length: node.length, newText };
}
