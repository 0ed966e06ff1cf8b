/** Generated configs for benchmarks: N tools in the quick-start's style, a few problems sprinkled in. */
export function generateConfig(tools: number, options: { problems?: boolean } = {}): string {
  const parts: string[] = [];
  for (let i = 0; i < tools; i++) {
    const broken = options.problems !== false && i % 997 === 13;
    parts.push(
      `    {
      "node": "TOOL",
      "name": "${broken ? `tool ${i}` : `tool_${i}`}",
      "description": "${broken ? 'clipboard' : `Look up record number ${i} in the user's local database.`}",
      "parameters": {
        "type": "object",
        "properties": {
          "query": { "type": "${broken ? 'int' : 'string'}", "description": "What to search for." },
          "limit": { "type": "integer", "minimum": 1, "maximum": ${100 + (i % 7)} }
        },
        "required": ["query"${broken ? ', "offset"' : ''}]
      }${broken ? ',\n      "desc": "typo"' : ''}
    }`,
    );
  }
  return `{
  "agent": "graph:app",
  "remote_tools": [
${parts.join(',\n')}
  ]
}
`;
}
