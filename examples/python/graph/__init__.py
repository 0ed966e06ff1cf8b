"""The graph package of the example: graph.react holds the agent."""
