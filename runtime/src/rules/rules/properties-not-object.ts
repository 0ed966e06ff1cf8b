import { type Rule, Kind, NONE, describeType } from '../context';

/** `properties-not-object`: `parameters.properties`, when present, is an object. */
export const propertiesNotObject: Rule = {
  code: 'properties-not-object',
  check({ tree, tools, report }) {
    for (const tool of tools) {
      if (!tool.schema) continue;
      const properties = tool.schema.properties;
      if (properties === NONE || tree.kind[properties] === Kind.Object) continue;
      report({
        code: 'properties-not-object',
        message: `"parameters.properties" of ${tool.label} must be an object mapping each parameter to its schema, not ${describeType(tree, properties)}.`,
        node: properties,
      });
    }
  },
};
