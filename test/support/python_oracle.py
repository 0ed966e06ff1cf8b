"""Runs Python agent modules the way the 10xGraph server loads them, against a stand-in of 10xGraph.

The Python reader (runtime/src/workspace/pythonGraph.ts) reads a module's graph without running it.
This script is what the tests hold it to: CPython compiles and runs each module, with a small
stand-in for the `tenxgraph` package (StateGraph, ToolNode, Agent, CompiledGraph and the prebuilt
agents, following 10xGraph's documented behaviour: `add_node` names a node by its string or by the
callable's `__name__`, `override_node` replaces one, each prebuilt agent's `compile()` adds the
nodes of its table), then takes the named attribute as the server's loader does (a callable is
called with no argument, an `async def` is awaited, the result must be a compiled graph).

Every other import resolves to a permissive placeholder, so a module's own helpers and
third-party packages need not be installed. Nothing here is 10xGraph's code.

Input (stdin): a JSON list of {"source": str, "attr": str}. Output (stdout): a JSON list, one per
input, of {"nodes": [[name, kind], ...], "names": [...]} or {"error": kind, "message": str,
"names": [...]} ("names": the module's top-level names, when it ran).
"""

import asyncio
import importlib.abc
import importlib.machinery
import inspect
import json
import sys
import types

START, END = "__start__", "__end__"
FRAMEWORKS = ("tenxgraph", "agentflow", "pyagenity")


class _AnyMeta(type):
    """The type of placeholder classes: any attribute, subscript (generics) or call works."""

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Anything(name)

    def __getitem__(cls, item):
        return cls


class Anything:
    """A placeholder value: callable, awaitable, iterable (empty), a context manager; any attribute is another."""

    def __init__(self, name="anything", *args, **kwargs):
        object.__setattr__(self, "__name__", name if isinstance(name, str) else "anything")

    def __call__(self, *args, **kwargs):
        return Anything(self.__name__)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Anything(name)

    def __getitem__(self, key):
        return Anything("item")

    def __setitem__(self, key, value):
        pass

    def __iter__(self):
        return iter(())

    def __await__(self):
        return iter(())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        return False


def placeholder(name):
    """A class for a capitalised name (it may be subclassed or subscripted), a callable value otherwise."""
    if name[:1].isupper():
        return _AnyMeta(name, (), {"__init__": lambda self, *a, **k: None, "__getattr__": lambda self, n: Anything(n)})
    return Anything(name)


# ---- the stand-in of 10xGraph's graph ------------------------------------------------------


class ToolNode:
    def __init__(self, tools=None, *args, client=None, **kwargs):
        self.tools = tools
        self.client = client


class BaseAgent:
    async def __call__(self, *args, **kwargs):
        return None


class Agent(BaseAgent):
    def __init__(self, model=None, *args, tool_node=None, **kwargs):
        self.tool_node = tool_node
        self.lazy_tools = "memory" in kwargs or "skills" in kwargs

    def owns_tool_node(self):
        return isinstance(self.tool_node, ToolNode)


def kind_of(value):
    if isinstance(value, ToolNode):
        return "tool_node"
    if isinstance(value, BaseAgent):
        return "model_node"
    if isinstance(value, (types.FunctionType, types.MethodType)):
        return "function_node"
    return "unknown"


class StateGraph:
    def __class_getitem__(cls, item):
        return cls

    def __init__(self, state=None, context_manager=None, publisher=None, id_generator=None, container=None):
        self.nodes = {START: None, END: None}

    def add_node(self, name_or_func, func=None):
        if callable(name_or_func) and func is None:
            name = name_or_func.__name__
            value = name_or_func
        elif isinstance(name_or_func, str) and (callable(func) or isinstance(func, (ToolNode, BaseAgent))):
            name = name_or_func
            value = func
        else:
            raise ValueError("Invalid arguments for add_node")
        self.nodes[name] = value
        return self

    def override_node(self, name, func):
        if name not in self.nodes:
            raise KeyError(name)
        self.nodes[name] = func
        return self

    def add_edge(self, *args, **kwargs):
        return self

    def add_conditional_edges(self, *args, **kwargs):
        return self

    def set_entry_point(self, *args, **kwargs):
        return self

    def compile(self, *args, **kwargs):
        return CompiledGraph(self)


class CompiledGraph:
    def __init__(self, graph):
        self.state_graph = graph

    def override_node(self, name, func):
        self.state_graph.override_node(name, func)
        return self

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Anything(name)


# ---- the prebuilt agents, as their compile() builds each graph ------------------------------


class _Prebuilt:
    def __class_getitem__(cls, item):
        return cls

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs

    def arg(self, name, position=None, default=None):
        if name in self.kwargs:
            return self.kwargs[name]
        if position is not None and len(self.args) > position:
            return self.args[position]
        return default

    def has_tools(self, position=None):
        return bool(self.arg("tools", position)) or self.arg("client") is not None

    def build(self, graph, *args, **kwargs):
        raise NotImplementedError

    def compile(self, *args, **kwargs):
        graph = StateGraph()
        self.build(graph, *args, **kwargs)
        return graph.compile()


def _fn(state=None):
    return state


class ReactAgent(_Prebuilt):
    def build(self, graph, main_node=None, tool_node=None, **kwargs):
        if self.arg("model", 0) is None:
            # The older API: the nodes are given to compile(), a callable or a (callable, "NAME") tuple.
            for given, default in ((main_node, "MAIN"), (tool_node, "TOOL")):
                if given is None:
                    continue
                value, name = (given[0], given[1]) if isinstance(given, tuple) else (given, default)
                graph.add_node(name, value)
            return
        graph.add_node(self.arg("main_node_name", default="MAIN"), Agent())
        if self.has_tools():
            graph.add_node(self.arg("tool_node_name", default="TOOL"), ToolNode())


class RAGAgent(_Prebuilt):
    def build(self, graph, *args, **kwargs):
        graph.add_node("RETRIEVE", _fn)
        graph.add_node("SYNTHESIZE", Anything("synthesize"))
        if self.arg("reranker", 2) is not None:
            graph.add_node("RERANK", _fn)


class PlanActReflectAgent(_Prebuilt):
    def build(self, graph, *args, **kwargs):
        graph.add_node("PLAN", Agent())
        if self.has_tools(1):
            graph.add_node("ACT", ToolNode())
        graph.add_node("REFLECT", _fn)
        graph.add_node("INCREMENT_ITERATIONS", _fn)


class StructuredOutputAgent(_Prebuilt):
    def build(self, graph, *args, **kwargs):
        graph.add_node("GENERATE", Agent())
        if self.has_tools(2):
            graph.add_node("TOOL", ToolNode())
        graph.add_node("REPAIR", Anything("repair"))


def _members(graph, members):
    for key, config in members.items():
        graph.add_node(key, config.agent)
        if config.agent.lazy_tools:
            raise RuntimeError("a member whose ToolNode is made lazily")
        if config.agent.owns_tool_node():
            graph.add_node(f"{key}_TOOL", ToolNode())


class SupervisorTeamAgent(_Prebuilt):
    def build(self, graph, *args, **kwargs):
        graph.add_node("SUPERVISOR", _fn)
        graph.add_node("PRE_SUPERVISOR", _fn)
        _members(graph, self.arg("workers", 1))


class SwarmAgent(_Prebuilt):
    def build(self, graph, *args, **kwargs):
        _members(graph, self.arg("members", 0))


class AudioAgent(_Prebuilt):
    def build(self, graph, *args, **kwargs):
        graph.add_node(self.arg("live_node_name", default="LIVE"), Agent())


class WorkerConfig:
    def __init__(self, agent=None, description=None, **kwargs):
        self.agent = agent


SwarmMemberConfig = WorkerConfig


def setup_observability(graph=None, *args, **kwargs):
    return None


STAND_IN = {
    "StateGraph": StateGraph,
    "CompiledGraph": CompiledGraph,
    "ToolNode": ToolNode,
    "Agent": Agent,
    "BaseAgent": BaseAgent,
    "ReactAgent": ReactAgent,
    "RAGAgent": RAGAgent,
    "PlanActReflectAgent": PlanActReflectAgent,
    "StructuredOutputAgent": StructuredOutputAgent,
    "SupervisorTeamAgent": SupervisorTeamAgent,
    "SwarmAgent": SwarmAgent,
    "AudioAgent": AudioAgent,
    "WorkerConfig": WorkerConfig,
    "SwarmMemberConfig": SwarmMemberConfig,
    "setup_logfire": setup_observability,
    "setup_langsmith": setup_observability,
    "setup_observability": setup_observability,
    "setup_tracing": setup_observability,
    "START": START,
    "END": END,
}


# ---- imports: the framework's modules stand in, any other missing module is a placeholder ----


class _StandInModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = STAND_IN.get(name) or placeholder(name)
        setattr(self, name, value)
        return value


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        module = _StandInModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, frameworks_only):
        self.frameworks_only = frameworks_only

    def find_spec(self, fullname, path=None, target=None):
        is_framework = fullname.split(".")[0] in FRAMEWORKS
        if self.frameworks_only != is_framework:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=True)


sys.meta_path.insert(0, _Finder(True))
sys.meta_path.append(_Finder(False))


def load(source, attr, index):
    package = f"oracle_module_{index}"
    name = f"{package}.module"
    try:
        code = compile(source, f"{name}.py", "exec", dont_inherit=True)
    except SyntaxError as error:
        return {"error": "SyntaxError", "message": error.msg}
    importlib.import_module(package)
    module = types.ModuleType(name)
    module.__package__ = package
    module.__file__ = f"{name}.py"
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    except BaseException as error:  # noqa: BLE001 - any failure of the module is its answer
        return {"error": type(error).__name__, "message": str(error)[:200]}
    names = sorted(k for k in vars(module) if not (k.startswith("__") and k.endswith("__")))
    try:
        value = getattr(module, attr)
        if callable(value) and not isinstance(value, CompiledGraph):
            value = asyncio.run(value()) if inspect.iscoroutinefunction(value) else value()
    except BaseException as error:  # noqa: BLE001
        return {"error": type(error).__name__, "message": str(error)[:200], "names": names}
    if not isinstance(value, CompiledGraph):
        return {"error": "TypeError", "message": "Loaded object is not a CompiledGraph.", "names": names}
    nodes = [[n, kind_of(v)] for n, v in value.state_graph.nodes.items() if n not in (START, END)]
    return {"nodes": nodes, "names": names}


def main():
    cases = json.load(sys.stdin)
    results = [load(case["source"], case["attr"], i) for i, case in enumerate(cases)]
    json.dump(results, sys.stdout)


main()
