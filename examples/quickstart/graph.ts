/**
 * The quick start's agent graph: a model node and a ToolNode `TOOL` with one server tool,
 * `get_time`. The three remote tools of 10xgraph.json (`get_user_location`, `read_clipboard`,
 * `search_local_database`) are attached to `TOOL` by `10xgraph api` at start-up; their handlers
 * run in the client (client.ts).
 *
 * The model is a `ScriptedModel`, a deterministic stand-in so the example runs without a model
 * API: it calls a tool when the user's text asks for one and then answers with the results. For a
 * real model, replace it with `new OpenAIChatModel()` (OPENAI_BASE_URL, OPENAI_MODEL, OPENAI_API_KEY).
 */
import { END, ModelNode, ScriptedModel, StateGraph, ToolNode, toolsCondition } from '10xgraph';

const model = new ScriptedModel({
  rules: [
    { when: /\btime\b|\bclock\b/i, call: 'get_time' },
    { when: /\bwhere am i\b|\blocation\b|\bwhere i am\b/i, call: 'get_user_location' },
    { when: /\bclipboard\b/i, call: 'read_clipboard' },
    {
      when: /\b(?:search|find|look up)\b(?:\s+(?:for|the database for))?\s*(.*)$/i,
      call: 'search_local_database',
      args: (match, text) => ({ query: (match?.[1] ?? text).replace(/[?.!"']+$/g, '').trim() || text }),
    },
  ],
  reply: (_text, request) =>
    `I can tell the time, find your location, read your clipboard or search your local database. Tools: ${request.tools.map((tool) => tool.name).join(', ')}.`,
});

const tools = new ToolNode([
  {
    name: 'get_time',
    description: "Get the server's current date and time (ISO 8601, UTC).",
    parameters: { type: 'object', properties: {}, required: [] },
    handler: async () => new Date().toISOString(),
  },
]);

/** The compiled graph `10xgraph.json` names as `graph:app`. */
export const app = new StateGraph()
  .addNode('agent', new ModelNode(model))
  .addNode('TOOL', tools)
  .setEntryPoint('agent')
  .addConditionalEdges('agent', toolsCondition, ['TOOL', END])
  .addEdge('TOOL', 'agent')
  .compile({ name: 'quickstart' });
