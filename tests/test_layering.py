"""How rnnviz's modules depend on each other: no import circle, figures take arrays (nothing from lessons), and no
dispatch on a cell's name outside the registry (each cell is one object, `rnnviz.nn.cells`)."""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "rnnviz"


def module_name(f: Path) -> str:
    parts = f.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(f): f for f in PKG.rglob("*.py")}


def imports(f: Path) -> set[str]:
    """The rnnviz modules a file imports anywhere in it (top level, inside functions, under TYPE_CHECKING)."""
    out = set()
    for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in MODULES else node.module
                    for a in node.names}
    return {m for m in out if m in MODULES}


GRAPH = {m: imports(f) - {m} for m, f in MODULES.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_is_read():
    """The walk sees the imports it is meant to judge (a broken walk would find no circle anywhere)."""
    assert "rnnviz.nn.cells" in GRAPH["rnnviz.charlm.runner"]
    assert "rnnviz.charlm.runner" in GRAPH["rnnviz.charlm"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_in_a_cycle():
    assert cycles(GRAPH) == []


def test_figures_import_nothing_from_lessons():
    offenders = {m: sorted(d for d in deps if d.startswith("rnnviz.lessons"))
                 for m, deps in GRAPH.items() if m.startswith("rnnviz.figures")}
    assert {m: d for m, d in offenders.items() if d} == {}


DISPATCH = re.compile(r"""[!=]=\s*["'](lstm|gru|rnn)["']|["'](lstm|gru|rnn)["']\s*[!=]=""")


OUTCOMES = {  # an experiment's result named in words (which cell led), not a choice of what to compute
    'ui/lessons/gradients.py: if leader == "rnn":',
}


def test_no_dispatch_on_a_cell_name_outside_the_registry():
    """`cell == "lstm"` belongs nowhere but rnnviz/nn/cells/: elsewhere the cell object says what it has (gates,
    has_cell_state, forget_gate, torch_module, param_count)."""
    files = [f for f in PKG.rglob("*.py") if "cells" not in f.relative_to(PKG).parts[:2]]
    files += [*(ROOT / "app_pages").glob("*.py"), *(ROOT / "ui").rglob("*.py"), ROOT / "app.py"]
    hits = [f"{f.relative_to(ROOT)}: {line.strip()}" for f in files
            for line in f.read_text(encoding="utf-8").splitlines() if DISPATCH.search(line)]
    assert [h for h in hits if h not in OUTCOMES] == []
    assert DISPATCH.search('if lm.cell == "lstm":') and DISPATCH.search("'gru' != c")
