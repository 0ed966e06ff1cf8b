"""A ReAct agent: the model answers, or asks the ToolNode TOOL to run a tool and goes on.

10xgraph.json names it as "graph.react:app". TOOL runs get_weather on the server and hands
the remote tools of 10xgraph.json (get_user_location, read_clipboard) to the client.
"""

from tenxgraph.checkpointer import InMemoryCheckpointer
from tenxgraph.core.graph import StateGraph, ToolNode
from tenxgraph.core.graph.agent import Agent
from tenxgraph.utils.constants import END


def get_weather(location: str) -> str:
    """Get the current weather for a location."""
    return f"It is sunny in {location}."


tool_node = ToolNode([get_weather])

main_agent = Agent(
    model="gemini/gemini-2.5-flash",
    system_prompt=[{"role": "system", "content": "You are a helpful assistant. Use the tools when they help."}],
    tool_node="TOOL",
)


def should_use_tools(state) -> str:
    """Go to TOOL when the last message asks for tools, back to MAIN after a tool result, else end."""
    if not state.context:
        return END
    last = state.context[-1]
    if getattr(last, "tools_calls", None) and last.role == "assistant":
        return "TOOL"
    if last.role == "tool":
        return "MAIN"
    return END


graph = StateGraph()
graph.add_node("MAIN", main_agent)
graph.add_node("TOOL", tool_node)
graph.add_conditional_edges("MAIN", should_use_tools, {"TOOL": "TOOL", END: END})
graph.add_edge("TOOL", "MAIN")
graph.set_entry_point("MAIN")

app = graph.compile(checkpointer=InMemoryCheckpointer())
