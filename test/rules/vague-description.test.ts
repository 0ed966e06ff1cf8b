// vague-description: information (editor only) when a description has fewer than three words.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeConfig } from '../../runtime/src/rules';
import { config, expectNone, expectProblems, tool, unmark } from './helpers';

const CODE = 'vague-description';

describe('vague-description', () => {
  for (const [what, description, count] of [
    ['one word', 'clipboard', 'one word'],
    ['two words', 'Read clipboard', '2 words'],
    ['words joined by punctuation only', 'read-the-clipboard', 'one word'],
    ['two words and a dash', 'clipboard - read', '2 words'],
    ['symbols only', '📋 → 📝', '0 words'],
  ] as const) {
    test(`a description of ${what} is information on the value`, () => {
      const { problems } = expectProblems(config(tool({ description: `⟦${JSON.stringify(description)}⟧` })), CODE, { only: true, messages: ["tool 'read_clipboard'", count] });
      assert.equal(problems[0].severity, 'information');
    });
  }

  test('three words or more, in any script, is fine', () => {
    expectNone(config(tool({ description: '"Read the clipboard"' })), CODE);
    expectNone(config(tool({ description: '"Lê o texto"' })), CODE);
    expectNone(config(tool({ description: '"読む 書く 消す"' })), CODE);
    expectNone(config(tool({ description: '"Read\\tthe\\nclipboard"' })), CODE);
  });

  test('a tool without a name is named by its index', () => {
    expectProblems(config(tool({ name: undefined, description: '⟦"clipboard"⟧' })), CODE, { messages: ['remote_tools[0]'] });
  });

  test('a blank or non-string description is judged by its own rule only', () => {
    expectNone(config(tool({ description: '"  "' })), CODE);
    expectNone(config(tool({ description: '["clipboard"]' })), CODE);
  });

  test('information never blocks the config', () => {
    const { text } = unmark(config(tool({ description: '"clipboard"' })));
    assert.equal(analyzeConfig(text).config?.remoteTools[0].description, 'clipboard');
  });
});
