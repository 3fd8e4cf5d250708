"""The architecture numbers of issue 41, read from the source (nothing is imported or run).

    python scripts/architecture_counts.py            # a table of every number
    python scripts/architecture_counts.py --json     # the same as JSON
    python scripts/architecture_counts.py --list climbing   # the items behind one number

- `suite_members`: what a suite declares (`DeclaredSuite`'s fields, each part's fields: `suites/declared.py`,
  `suites/parts.py`); optional = those with a default. `runner_protocol`: members of the runner's `Suite` protocol
  (`suites/base.py`), which a declared suite derives (before issue 41's declaration, every suite wrote them).
- `any_at_seams`: annotations that mention `Any` where a suite, an agent or an episode crosses a seam: parameters
  named in `SEAM_PARAMS`, returns of the functions `SEAM_RETURN` names, and `Registry[...]`.
  `any_share` is the share of all parameter and return annotations that mention `Any`.
- `function_imports`: import statements inside a function (they run on call, so a module-level check misses them).
- `climbing_imports`: import statements, at any depth, from a unit to a unit of a higher layer, with the layers
  read from the table in `docs/architecture.md` (the same parser `tests/test_import_layers.py` uses).
- `circles`: groups of modules that import each other (strongly connected, every import statement counted), and
  imports of a private (`_name`) from another heedful module.
- `fourth_suite`: the files and lines a third party writes for `tests/fourth_suite` (its test harness excluded).
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "src" / "heedful"
ARCHITECTURE = REPO / "docs" / "architecture.md"
FOURTH_SUITE = REPO / "tests" / "fourth_suite"
FOURTH_SUITE_HARNESS = ("test_fourth_suite.py",)
"""What heedful's own tests add around the third party's files."""

SEAM_PARAMS = frozenset({"suite", "agent", "episode", "episodes", "agent_class", "agent_cls", "factory"})
SEAM_RETURN = re.compile(r"(suite|agent|agent_class|episode|episodes)$|^(generate|load_dataset|episodes_for_run)$")
"""Functions that hand out a suite, an agent (class) or episodes."""


@dataclass(frozen=True)
class Import:
    """One import statement of a heedful module, resolved to absolute module names."""

    module: str
    """The importing module (`heedful.suites.base`)."""
    targets: tuple[str, ...]
    """The heedful modules it names (`heedful.metrics.render`); `from X import a, b` also names `X.a`, `X.b`."""
    names: tuple[str, ...]
    """The names a `from` import takes."""
    line: int
    in_function: bool
    type_only: bool
    """Under `if TYPE_CHECKING:`: read by type checkers, never run."""


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("heedful", *parts))


def unit(module: str) -> str:
    """The layer unit of a module: its top-level subpackage or module (`heedful.suites.base` -> `suites`);
    `heedful` for the package root."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "heedful"


@functools.cache
def tree(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(SRC.rglob("*.py"))}


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _walk(node: ast.AST, in_function: bool = False, type_only: bool = False) -> Iterator[tuple[ast.AST, bool, bool]]:
    for child in ast.iter_child_nodes(node):
        yield child, in_function, type_only
        inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        yield from _walk(child, inner, type_only or _type_checking(child))


def imports(module: str, path: Path) -> list[Import]:
    """Every import statement of a module (module level, in a class, in a function), plus
    `importlib.import_module("heedful...")` with a literal name."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = []
    for node, in_function, type_only in _walk(tree(path)):
        names: tuple[str, ...] = ()
        if isinstance(node, ast.Import):
            targets = tuple(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            names = tuple(alias.name for alias in node.names)
            targets = (source, *(f"{source}.{name}" for name in names))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            targets = (node.args[0].value,)
        else:
            continue
        targets = tuple(t for t in targets if t == "heedful" or t.startswith("heedful."))
        if targets:
            found.append(Import(module, targets, names, node.lineno, in_function, type_only))
    return found


@functools.cache
def _all_imports() -> tuple[Import, ...]:
    return tuple(imp for module, path in modules().items() for imp in imports(module, path))


def all_imports() -> list[Import]:
    return list(_all_imports())


def _known(target: str, known: dict[str, Path]) -> str | None:
    """The heedful module a dotted target names (`heedful.metrics.render.x` -> `heedful.metrics.render`)."""
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def layer_table(text: str | None = None) -> dict[str, int]:
    """unit -> layer (0 lowest), from the table under "## Import layers" in docs/architecture.md: rows
    `| N | `unit`, `unit` ... | why |`."""
    text = ARCHITECTURE.read_text(encoding="utf-8") if text is None else text
    section = text.split("## Import layers", 1)[1].split("\n## ", 1)[0]
    layers: dict[str, int] = {}
    for row in re.finditer(r"^\|\s*(\d+)\s*\|([^|]*)\|", section, flags=re.MULTILINE):
        for name in re.findall(r"`([a-z_]+)`", row.group(2)):
            if name in layers:
                raise ValueError(f"{name} is in two layers of the table in {ARCHITECTURE.name}")
            layers[name] = int(row.group(1))
    if not layers:
        raise ValueError(f"no layer table under '## Import layers' in {ARCHITECTURE.name}")
    return layers


@dataclass(frozen=True)
class Edge:
    module: str
    target: str
    line: int
    in_function: bool
    type_only: bool


def module_edges(found: list[Import] | None = None) -> list[Edge]:
    """(importing module, imported module) for every import statement; one edge per distinct imported module."""
    known = modules()
    edges = []
    for imp in all_imports() if found is None else found:
        seen = set()
        for target in imp.targets:
            resolved = _known(target, known)
            if resolved and resolved != imp.module and resolved not in seen:
                seen.add(resolved)
                edges.append(Edge(imp.module, resolved, imp.line, imp.in_function, imp.type_only))
    # `from heedful.x import y` names both heedful.x and heedful.x.y: keep the deepest module only
    by_statement: dict[tuple[str, int], list[str]] = defaultdict(list)
    for edge in edges:
        by_statement[(edge.module, edge.line)].append(edge.target)
    deepest = [
        edge
        for edge in edges
        if not any(other.startswith(edge.target + ".") for other in by_statement[(edge.module, edge.line)])
    ]
    return deepest


def climbing(edges: list[Edge], layers: dict[str, int]) -> list[Edge]:
    """Edges from a unit to a unit of a higher layer. A unit missing from the table is an error."""
    missing = sorted({unit(m) for e in edges for m in (e.module, e.target)} - set(layers))
    if missing:
        raise ValueError(f"units missing from the layer table in {ARCHITECTURE.name}: {', '.join(missing)}")
    return [e for e in edges if layers[unit(e.target)] > layers[unit(e.module)]]


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one node, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(out)


def circles(edges: list[Edge], by_unit: bool) -> list[list[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        a, b = (unit(e.module), unit(e.target)) if by_unit else (e.module, e.target)
        if a != b:
            graph[a].add(b)
    return strongly_connected(graph)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(found: list[Import]) -> list[str]:
    """`module:line name <- source` for each private name one heedful module takes from another: imported by
    name (`from heedful.x import _f`) or read from an imported module (`from heedful.runner import backends`,
    then `backends._f`)."""
    known = modules()
    out = []
    for imp in found:
        for name in imp.names:
            if _private(name):
                out.append(f"{imp.module}:{imp.line} {name} <- {imp.targets[0]}")
    for module, path in known.items():
        aliases: dict[str, str] = {}
        parsed = tree(path)
        for node in ast.walk(parsed):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for alias in node.names:
                    if f"{node.module}.{alias.name}" in known:
                        aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname and alias.name in known:
                        aliases[alias.asname] = alias.name
        for node in ast.walk(parsed):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and _private(node.attr)
                and aliases[node.value.id] != module
            ):
                out.append(f"{module}:{node.lineno} {node.attr} <- {aliases[node.value.id]}")
    return sorted(set(out))


def _mentions_any(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return re.search(r"\bAny\b", annotation.value) is not None
    return any(
        (isinstance(n, ast.Name) and n.id == "Any") or (isinstance(n, ast.Attribute) and n.attr == "Any")
        for n in ast.walk(annotation)
    )


def any_counts() -> tuple[dict[str, int], list[str]]:
    counts: dict[str, int] = defaultdict(int)
    items = []
    total = with_any = 0
    for module, path in modules().items():
        parsed = tree(path)
        for node in ast.walk(parsed):
            if isinstance(node, ast.AnnAssign | ast.arg):
                annotation = node.annotation
                if annotation is not None and "Registry" in ast.unparse(annotation) and _mentions_any(annotation):
                    counts["Registry[Any]"] += 1
                    items.append(f"{module}:{node.lineno} {ast.unparse(annotation)}")
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
            for arg in args:
                if arg.annotation is None:
                    continue
                total += 1
                if _mentions_any(arg.annotation):
                    with_any += 1
                    if arg.arg in SEAM_PARAMS:
                        counts[f"param {arg.arg}"] += 1
                        items.append(f"{module}:{arg.lineno} {node.name}({arg.arg}: {ast.unparse(arg.annotation)})")
            if node.returns is not None:
                total += 1
                if _mentions_any(node.returns):
                    with_any += 1
                    if SEAM_RETURN.search(node.name):
                        counts["return"] += 1
                        items.append(f"{module}:{node.lineno} {node.name} -> {ast.unparse(node.returns)}")
    counts["total"] = sum(counts.values())
    counts["annotations"] = total
    counts["annotations mentioning Any"] = with_any
    return dict(sorted(counts.items())), items


def _fields(cls: ast.ClassDef) -> tuple[list[str], list[str]]:
    """(required, optional) fields of a dataclass: annotated names, optional when they have a default."""
    required, optional = [], []
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            (optional if node.value is not None else required).append(node.target.id)
    return required, optional


def suite_members() -> dict[str, list[str]]:
    """What a suite author declares: `DeclaredSuite`'s fields and, for each part, its fields (`scoring` is
    `metrics.scoring.Scoring`, counted as one member as the old protocol's `scoring` was)."""

    def classes(module: str) -> dict[str, ast.ClassDef]:
        body = ast.parse((SRC / "suites" / module).read_text(encoding="utf-8")).body
        return {n.name: n for n in body if isinstance(n, ast.ClassDef)}

    parts = classes("parts.py")
    top_required, top_optional = _fields(classes("declared.py")["DeclaredSuite"])
    out: dict[str, list[str]] = {"required": [], "optional": []}
    for name in top_required + top_optional:
        part = {"episodes": "Episodes", "options": "Options", "rollout": "Rollout", "view": "View"}.get(name)
        if part is None:
            (out["required"] if name in top_required else out["optional"]).append(name)
            continue
        required, optional = _fields(parts[part])
        if name in top_optional:  # a part with a default: each of its fields is optional
            required, optional = [], required + optional
        out["required"] += [f"{name}.{field}" for field in required]
        out["optional"] += [f"{name}.{field}" for field in optional]
    return out


def runner_protocol_members() -> int:
    """Members of the runner's `Suite` protocol (`suites/base.py`): derived from a declaration, written by no suite."""
    tree = ast.parse((SRC / "suites" / "base.py").read_text(encoding="utf-8"))
    protocol = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Suite")
    return sum(isinstance(n, ast.FunctionDef | ast.AnnAssign) for n in protocol.body)


def fourth_suite() -> dict[str, int]:
    files = [
        p
        for p in sorted(FOURTH_SUITE.rglob("*"))
        if p.is_file()
        and p.suffix in (".py", ".toml", ".txt", ".cfg")
        and p.name not in FOURTH_SUITE_HARNESS
        and "__pycache__" not in p.parts
    ]
    lines = [line for p in files for line in p.read_text(encoding="utf-8").splitlines()]
    code = [line for line in lines if line.strip() and not line.strip().startswith("#")]
    return {"files": len(files), "lines": len(lines), "non-blank, non-comment lines": len(code)}


def measure() -> tuple[dict[str, object], dict[str, list[str]]]:
    found = all_imports()
    edges = module_edges(found)
    layers = layer_table()
    climb = climbing(edges, layers)
    members = suite_members()
    seam_counts, seam_items = any_counts()
    unit_circles = circles(edges, by_unit=True)
    module_circles = circles(edges, by_unit=False)
    private = private_imports(found)
    numbers: dict[str, object] = {
        "suite_members": {"all": sum(map(len, members.values())), **{k: len(v) for k, v in members.items()}},
        "runner_protocol": runner_protocol_members(),
        "any_at_seams": seam_counts,
        "function_imports": sum(imp.in_function for imp in found),
        "import_statements": len(found),
        "climbing_imports": {
            "statements": len({(e.module, e.line) for e in climb}),
            "in_functions": len({(e.module, e.line) for e in climb if e.in_function}),
        },
        "circles": {
            "between_units": len(unit_circles),
            "between_modules": len(module_circles),
            "private_names_across_modules": len(private),
        },
        "fourth_suite": fourth_suite(),
    }
    details = {
        "suite_members": [f"{k}: {', '.join(v)}" for k, v in members.items()],
        "any_at_seams": seam_items,
        "function_imports": [f"{i.module}:{i.line} {i.targets[0]}" for i in found if i.in_function],
        "climbing": [
            f"{e.module}:{e.line} -> {e.target} ({unit(e.module)} {layers[unit(e.module)]} -> "
            f"{unit(e.target)} {layers[unit(e.target)]}){' in a function' if e.in_function else ''}"
            for e in climb
        ],
        "circles": [" <-> ".join(c) for c in unit_circles + module_circles] + private,
    }
    return numbers, details


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    parser.add_argument(
        "--list",
        choices=["suite_members", "any_at_seams", "function_imports", "climbing", "circles"],
        help="print the items behind one number",
    )
    args = parser.parse_args(argv)
    numbers, details = measure()
    if args.list:
        print("\n".join(details[args.list]))
    elif args.json:
        print(json.dumps(numbers, indent=1))
    else:
        for key, value in numbers.items():
            print(f"{key}: {json.dumps(value)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
