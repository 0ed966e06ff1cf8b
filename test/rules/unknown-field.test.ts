// unknown-field: a remote tool takes only node (or node_name, its other name), name, description
// and parameters; the problem covers the key, and the fixes rename it to the field it most likely
// means or remove it. node_name beside node is refused, as the server refuses it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GOOD_DESCRIPTION, checkFix, config, expectClean, expectNone, expectProblems, problemsAt, tool } from './helpers';

const CODE = 'unknown-field';
const D = JSON.stringify(GOOD_DESCRIPTION);

describe('unknown-field', () => {
  test('an unknown field is an error on its key, naming the field and the tool', () => {
    const { problems } = expectProblems(config(tool({ '⟦"color"⟧': '"blue"' })), CODE, { only: true, messages: ['"color"', "tool 'read_clipboard'"] });
    const fixes = problems[0].fixes!;
    assert.equal(fixes.length, 1, 'no field is close to "color": only the removal is offered');
    assert.equal(fixes[0].isPreferred, true);
  });

  test('a tool without a name is named by its index', () => {
    expectProblems(config(tool({ name: undefined, '⟦"color"⟧': '1' })), CODE, { messages: ['remote_tools[0]'] });
  });

  const valueFor = (field: string) =>
    field === 'parameters' ? '{"type": "object", "properties": {}}' : field === 'description' ? D : field === 'node' ? '"TOOL"' : '"read_clipboard"';

  for (const [key, field] of [
    ['desc', 'description'],
    ['descr', 'description'],
    ['toolNode', 'node'],
    ['params', 'parameters'],
    ['tool_name', 'name'],
    ['nam', 'name'],
    ['Description', 'description'],
  ] as const) {
    test(`"${key}" can only mean "${field}": a safe rename is offered when the tool lacks it`, () => {
      const { text, problems } = expectProblems(config(tool({ [field]: undefined, [`⟦"${key}"⟧`]: valueFor(field) })), CODE, { messages: [`"${key}"`, `"${field}"`] });
      const [rename, remove] = problems[0].fixes!;
      assert.equal(rename.safe, true);
      assert.equal(rename.isPreferred, true);
      assert.ok(rename.title.includes(field));
      assert.notEqual(remove.isPreferred, true);
      const fixed = checkFix(text, problems[0]);
      expectClean(fixed);
      assert.ok(field in JSON.parse(fixed).remote_tools[0]);
    });
  }

  for (const [key, field] of [
    ['summary', 'description'],
    ['input_schema', 'parameters'],
    ['args', 'parameters'],
  ] as const) {
    test(`"${key}" probably means "${field}": the rename is offered and preferred, but never applied unasked`, () => {
      const { text, problems } = expectProblems(config(tool({ [field]: undefined, [`⟦"${key}"⟧`]: valueFor(field) })), CODE, { messages: [`"${key}"`, `"${field}"`] });
      const [rename] = problems[0].fixes!;
      assert.ok(rename.title.includes(field));
      assert.equal(rename.isPreferred, true);
      assert.notEqual(rename.safe, true);
      expectClean(checkFix(text, problems[0]));
    });
  }

  test('"node_name" alone is the node: accepted', () => {
    expectClean(config(tool({ node: undefined, node_name: '"TOOL"' })));
  });

  test('"node_name" beside "node" is refused on its key, with a fix that removes it', () => {
    const { text, problems } = expectProblems(config(tool({ '⟦"node_name"⟧': '"TOOL"' })), CODE, {
      only: true,
      messages: ['both "node" and "node_name"', "tool 'read_clipboard'"],
    });
    const fixes = problems[0].fixes!;
    assert.deepEqual(
      fixes.map((f) => f.title),
      ['Remove "node_name"'],
    );
    assert.equal(fixes[0].isPreferred, true);
    assert.notEqual(fixes[0].safe, true, 'which of the two names is right is for a person to say');
    const fixed = checkFix(text, problems[0]);
    assert.equal(fixed, config(tool()));
    expectClean(fixed);
  });

  test('"node_name" written before "node" is refused too', () => {
    expectProblems(config(`{⟦"node_name"⟧: "OTHER", "node": "TOOL", "name": "read_clipboard", "description": ${D}}`), CODE, { only: true });
  });

  test('when the field it means is already set, only the removal is offered, and it keeps the JSON valid', () => {
    const { text, problems } = expectProblems(config(tool({ '⟦"desc"⟧': '"Another text for it."' })), CODE, { messages: ['already set'] });
    assert.equal(problems[0].fixes!.length, 1);
    assert.notEqual(problems[0].fixes![0].safe, true);
    assert.equal(checkFix(text, problems[0]), config(tool()));
  });

  test('removal works for a first, a middle and a last field, on one line and across lines', () => {
    for (const marked of [
      config(`{⟦"x"⟧: 1, "node": "TOOL", "name": "read_clipboard", "description": ${D}}`),
      config(`{"node": "TOOL", ⟦"x"⟧: 1, "name": "read_clipboard", "description": ${D}}`),
      config(`{"node": "TOOL", "name": "read_clipboard", "description": ${D}, ⟦"x"⟧: 1}`),
      `{\n  "agent": "graph:app",\n  "remote_tools": [\n    {\n      "node": "TOOL",\n      ⟦"x"⟧: {"a": [1, 2]},\n      "name": "read_clipboard",\n      "description": ${D}\n    }\n  ]\n}\n`,
    ]) {
      const { text, problems } = expectProblems(marked, CODE, { only: true });
      const removal = problems[0].fixes!.length - 1;
      expectClean(checkFix(text, problems[0], removal));
    }
  });

  test('a tool of only unknown fields: each key is reported, and removing one keeps the JSON valid', () => {
    const { text, problems } = expectProblems(config('{⟦"foo"⟧: 1, ⟦"bar"⟧: 2}'), CODE);
    for (const p of problems) checkFix(text, p, p.fixes!.length - 1);
  });

  test('the four allowed fields are never unknown, nor are JSON Schema keywords inside parameters', () => {
    expectNone(config(tool({ parameters: '{"type": "object", "properties": {"q": {"type": "string", "x-ui": 1}}, "additionalProperties": false}' })), CODE);
  });

  test('top-level keys are not tool fields: settings are judged by the settings rules, unknown ones by unknown-key', () => {
    expectNone(`{"agent": "graph:app", "env": ".env", "rate_limit": {"enabled": false}, "remote_tools": [${tool()}]}`, CODE);
    expectNone(`{"agent": "graph:app", "port": 8000, "cors": {"origins": ["*"]}, "remote_tools": [${tool()}]}`, CODE);
  });

  test('a repeated unknown key: its last occurrence (the one a strict parser keeps) is reported', () => {
    const { text, problems } = problemsAt(config(tool({ x: '1, "x": 2' })));
    const last = text.lastIndexOf('"x"');
    assert.ok(problems.some((p) => p.code === CODE && p.offset === last && p.length === 3));
  });
});

test('a misspelt "node" beside "node_name" is not renamed to "node": the tool would then give both', () => {
  const { problems } = expectProblems(config('{ "node_name": "TOOL", ⟦"nod"⟧: "x", "name": "b", "description": "Read the user\'s clipboard text." }'), 'unknown-field');
  assert.ok(problems[0].fixes!.every((f) => !f.title.startsWith('Rename')));
});
