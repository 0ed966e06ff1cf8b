import { type Rule, Kind, NONE, shown } from '../context';

/** `required-not-in-properties`: every required parameter is described in `properties`. */
export const requiredNotInProperties: Rule = {
  code: 'required-not-in-properties',
  check({ tree, tools, report }) {
    for (const tool of tools) {
      if (!tool.schema) continue;
      const { required, properties } = tool.schema;
      if (required === NONE || tree.kind[required] !== Kind.Array) continue;
      if (properties !== NONE && tree.kind[properties] !== Kind.Object) continue;
      for (let item = tree.first[required]; item !== NONE; item = tree.next[item]) {
        if (tree.kind[item] !== Kind.String) continue;
        const name = tree.string(item);
        if (properties !== NONE && tree.property(properties, name) !== NONE) continue;
        report({
          code: 'required-not-in-properties',
          message: `Required parameter '${shown(name)}' of ${tool.label} has no entry in "properties": describe it there, or remove it from "required".`,
          node: item,
        });
      }
    }
  },
};
