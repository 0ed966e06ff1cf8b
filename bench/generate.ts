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

/** Every setting of the file outside `remote_tools`, each with a value the 10xGraph server accepts. */
export const EVERY_SETTING = `  "env": ".env",
  "auth": { "method": "custom", "path": "auth.custom:Auth" },
  "authorization": { "backend": "rbac", "roles": { "admin": ["*"], "viewer": ["graph:read"] }, "default_scopes": ["graph:read"], "isolation": "owner" },
  "rate_limit": { "enabled": true, "backend": "redis", "requests": "100", "window": 60, "by": "user", "redis": { "url": "redis://localhost:6379/0", "prefix": "app" },
    "exclude_paths": ["/ping"], "trusted_proxy_headers": "yes", "trusted_proxy_hops": 2, "trusted_proxies": ["10.0.0.0/8", "::1"], "fail_open": false },
  "websocket": { "max_connections": 1000, "max_connections_per_user": 0, "realtime_models": ["gemini-2.5-flash-live"] },
  "ag_ui": { "enabled": true, "allow_client_tools": "off" },
  "observability": { "level": "standard", "logfire": { "enabled": true, "service_name": "agent" }, "langsmith": { "enabled": false, "project": "agent", "endpoint": null } },
  "injectq": "graph.dependencies:container",
  "store": "graph.dependencies:store",
  "thread_name_generator": "graph.names:Generator",
  "redis": "redis://localhost:6379/1",
  "test": { "path": "tests", "coverage": true, "coverage_threshold": 80 },
  "evaluation": { "directory": "evals", "output_dir": "eval_reports", "threshold": 0.75, "parallel": true, "max_concurrency": 4 },
`;

/** `generateConfig(tools)` with every setting of `EVERY_SETTING` set too. */
export function generateConfigWithSettings(tools: number): string {
  return generateConfig(tools).replace('{\n  "agent": "graph:app",\n', `{\n  "agent": "graph:app",\n${EVERY_SETTING}`);
}
