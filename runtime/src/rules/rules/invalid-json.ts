import { visit, ParseErrorCode } from 'jsonc-parser';
import type { Problem } from '../types';
import { commentLength } from '../tree';

const MESSAGES: Partial<Record<ParseErrorCode, string>> = {
  [ParseErrorCode.InvalidSymbol]: 'Unexpected character: expected a JSON value or punctuation.',
  [ParseErrorCode.InvalidNumberFormat]: 'Invalid number.',
  [ParseErrorCode.PropertyNameExpected]: 'Expected a property name in double quotes.',
  [ParseErrorCode.ValueExpected]: 'Expected a value (an object, array, string, number, true, false or null).',
  [ParseErrorCode.ColonExpected]: "Expected ':' after the property name.",
  [ParseErrorCode.CommaExpected]: "Expected ',' between members.",
  [ParseErrorCode.CloseBraceExpected]: "Expected '}' to close the object.",
  [ParseErrorCode.CloseBracketExpected]: "Expected ']' to close the array.",
  [ParseErrorCode.EndOfFileExpected]: 'Expected the end of the file after the root value.',
  [ParseErrorCode.InvalidCommentToken]: 'Comments are not allowed in strict JSON.',
  [ParseErrorCode.UnexpectedEndOfComment]: 'Unterminated comment (and comments are not allowed in strict JSON).',
  [ParseErrorCode.UnexpectedEndOfString]: 'Unterminated string: the text ends before the closing quote.',
  [ParseErrorCode.UnexpectedEndOfNumber]: 'Invalid number: it ends before its digits.',
  [ParseErrorCode.InvalidUnicode]: 'Invalid \\u escape: it needs four hexadecimal digits.',
  [ParseErrorCode.InvalidEscapeCharacter]: 'Invalid escape in a string.',
  [ParseErrorCode.InvalidCharacter]: 'Invalid character in a string: control characters must be escaped.',
};

const PREFIX = 'Invalid JSON: ';
const SUFFIX = ' The server parses 10xgraph.json as strict JSON and will not start.';

/**
 * Every syntax error of `text`, with recovery (one problem per parser error, at most `max`).
 * `first` is the strict parser's own first error: it is kept when the recovering parser,
 * which is more lenient about white space, does not see it.
 */
export function collectSyntaxProblems(text: string, first: { offset: number; length: number; message: string }, max: number): Problem[] {
  const problems: Problem[] = [];
  let lastComma = -1;
  let lastTokenEnd = 0;
  // The end of the last bad token: the recovering parser's next complaint right after it is
  // a follow-on of the same fault (one problem per fault).
  let lastBadEnd = -1;
  const add = (offset: number, length: number, message: string, fix?: Problem['fixes']) => {
    if (problems.length >= max) return;
    offset = Math.min(offset, text.length);
    length = Math.max(0, Math.min(length, text.length - offset));
    if (problems.some((p) => p.offset === offset)) return;
    problems.push({ code: 'invalid-json', severity: 'error', message: PREFIX + message + SUFFIX, offset, length, ...(fix ? { fixes: fix } : {}) });
  };
  const isBlankBetween = (from: number, to: number) => /^\s*$/.test(text.slice(from, to).replace(/\/\/[^\r\n]*|\/\*[\s\S]*?(\*\/|$)/g, ''));
  try {
    visit(
      text,
      {
        onSeparator(character, offset) {
          if (character === ',') lastComma = offset;
          lastTokenEnd = offset + 1;
        },
        onObjectBegin(offset) {
          lastTokenEnd = offset + 1;
        },
        onArrayBegin(offset) {
          lastTokenEnd = offset + 1;
        },
        onObjectEnd(offset, length) {
          lastTokenEnd = offset + length;
        },
        onArrayEnd(offset, length) {
          lastTokenEnd = offset + length;
        },
        onLiteralValue(_value, offset, length) {
          lastTokenEnd = offset + length;
        },
        onObjectProperty(_property, offset, length) {
          lastTokenEnd = offset + length;
        },
        onError(error, offset, length) {
          if (error === ParseErrorCode.InvalidCommentToken || error === ParseErrorCode.UnexpectedEndOfComment) {
            const len = text.charCodeAt(offset) === 47 ? commentLength(text, offset) : length;
            add(offset, len, MESSAGES[error]!, [{ title: 'Remove the comment', edits: [{ offset, length: len, newText: '' }], isPreferred: true, safe: true }]);
            return;
          }
          const closer = text.charCodeAt(offset);
          if (
            (error === ParseErrorCode.PropertyNameExpected || error === ParseErrorCode.ValueExpected) &&
            (closer === 125 || closer === 93) &&
            lastComma >= 0 &&
            lastComma >= lastTokenEnd - 1 &&
            isBlankBetween(lastComma + 1, offset)
          ) {
            add(lastComma, 1, 'Trailing comma: strict JSON allows no comma before a closing bracket.', [
              { title: 'Remove the trailing comma', edits: [{ offset: lastComma, length: 1, newText: '' }], isPreferred: true, safe: true },
            ]);
            return;
          }
          if (
            (error === ParseErrorCode.ValueExpected || error === ParseErrorCode.PropertyNameExpected || error === ParseErrorCode.CommaExpected) &&
            lastBadEnd >= 0 &&
            isBlankBetween(lastBadEnd, offset)
          ) {
            lastBadEnd = -1;
            return;
          }
          if (error === ParseErrorCode.InvalidSymbol || error === ParseErrorCode.InvalidNumberFormat) lastBadEnd = offset + length;
          else lastBadEnd = -1;
          if (offset >= text.length) {
            add(text.length, 0, `The text ends early. ${MESSAGES[error] ?? ''}`.trim());
            return;
          }
          add(offset, length, MESSAGES[error] ?? 'Syntax error.');
        },
      },
      { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false },
    );
  } catch (error) {
    // The recovering parser recurses; a very deep text overflows its stack. The strict
    // parser's own first error still stands.
    if (!(error instanceof RangeError)) throw error;
  }
  const isComment = first.message.startsWith('Comments');
  const isBom = first.message.includes('byte order mark');
  const isTrailing = first.message.startsWith('Trailing comma');
  const fix =
    isComment || isBom || isTrailing
      ? [
          {
            title: isComment ? 'Remove the comment' : isBom ? 'Remove the byte order mark' : 'Remove the trailing comma',
            edits: [{ offset: first.offset, length: first.length, newText: '' }],
            isPreferred: true,
            safe: true,
          },
        ]
      : undefined;
  const covering = problems.findIndex((p) => p.offset <= first.offset && first.offset <= p.offset + Math.max(p.length, 0));
  // The strict parser's own account wins where it knows more (a fix) than the recovering one.
  if (covering >= 0 && fix && !problems[covering].fixes) problems.splice(covering, 1);
  if (covering < 0 || (fix && !problems.some((p) => p.offset === first.offset && p.fixes))) {
    problems.length = Math.min(problems.length, max - 1);
    add(first.offset, first.length, first.message, fix);
  }
  return problems.sort((a, b) => a.offset - b.offset);
}
