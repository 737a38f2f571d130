#!/usr/bin/env python3
"""Fails when two modules of `src/` import each other in a loop (ARCHITECTURE.md, "Layers").

Every file is a module. A file depends on another when it names an item defined there: a
`use` (or a path written inline, `super::rated::counts(…)`) that resolves, through the
re-exports of a `mod.rs`, to the file that defines the item. A `mod.rs` declaring its children
or re-exporting their items does not depend on them; its own uses do. A loop between files is
a loop; so is one between folders (`matches/ledger` using `matches/view.rs`, which uses the
ledger), which the file graph shows the same way once each folder is read as one node.

Usage: import_cycles.py [SRC]   (prints each loop and exits 1, or prints nothing and exits 0)
"""

import re
import sys
from pathlib import Path

SRC = Path(sys.argv[1] if len(sys.argv) > 1 else "src")

USE = re.compile(r"^\s*(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.M)
INLINE = re.compile(r"\b((?:crate|super)(?:::[A-Za-z_][A-Za-z0-9_]*)+)")


def module_of(path: Path) -> tuple:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


FILES = {}
for path in sorted(SRC.rglob("*.rs")):
    if path.name == "main.rs" and path.parent == SRC:
        continue  # the binary: a user of the library, not a layer of it
    if "bin" in path.relative_to(SRC).parts:
        continue
    FILES[module_of(path)] = path


def strip(text: str) -> str:
    """The code without comments, string literals or `#[cfg(test)]` modules."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"pub\(in [^)]*\)", "pub", text)  # a visibility names no dependency
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    cut = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    return text[: cut.start()] if cut else text


def expand(tree: str) -> list:
    """`a::{b, c::{d, e}}` as ["a::b", "a::c::d", "a::c::e"]."""
    tree = re.sub(r"\s+", "", tree)
    brace = tree.find("{")
    if brace < 0:
        return [re.sub(r"as\w+$", "", tree)]
    prefix, inner = tree[:brace], tree[brace + 1 : -1]
    items, depth, start = [], 0, 0
    for i, ch in enumerate(inner):
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "," and depth == 0:
            items.append(inner[start:i])
            start = i + 1
    items.append(inner[start:])
    return [path for item in items if item for path in expand(prefix + item)]


TEXT = {module: strip(path.read_text()) for module, path in FILES.items()}

# Re-exports: (module, name) -> the absolute path it stands for.
REEXPORTS = {}
for module, text in TEXT.items():
    for match in USE.finditer(text):
        if not match.group(1):
            continue
        for path in expand(match.group(2)):
            name = path.split("::")[-1]
            REEXPORTS[(module, name)] = (module, path)


def absolute(module: tuple, path: str, is_mod_file: bool) -> list:
    """`path` as written in `module`, from the crate's root."""
    parts = path.split("::")
    if parts[0] == "crate":
        return parts[1:]
    base = list(module)
    if parts[0] == "self":
        return base + parts[1:]
    while parts and parts[0] == "super":
        base, parts = base[:-1], parts[1:]
    return base + parts


def resolve(parts: list, seen=None) -> tuple | None:
    """The file defining the item `parts` names (through re-exports), or None (outside)."""
    seen = seen or set()
    for cut in range(len(parts), -1, -1):
        candidate = tuple(parts[:cut])
        if candidate in FILES:
            rest = parts[cut:]
            if rest and (candidate, rest[0]) in REEXPORTS and (candidate, rest[0]) not in seen:
                seen.add((candidate, rest[0]))
                home, path = REEXPORTS[(candidate, rest[0])]
                target = absolute(home, path, is_mod(home))
                found = resolve(target + rest[1:], seen)
                if found is not None:
                    return found
            return candidate
    return None


def is_mod(module: tuple) -> bool:
    return FILES[module].name in ("mod.rs", "lib.rs")


EDGES = {module: set() for module in FILES}
WHY = {}  # (module, target) -> a path that made the edge
for module, text in TEXT.items():
    mod_file = is_mod(module)
    children = {child[-1] for child in FILES if child[:-1] == module and len(child) == len(module) + 1}
    paths = []
    for match in USE.finditer(text):
        if match.group(1) and mod_file:
            continue  # a folder's re-export is not a use
        for path in expand(match.group(2)):
            first = path.split("::")[0]
            if first in ("crate", "super", "self") or (mod_file and first in children):
                paths.append(path)
    body = USE.sub("", text)
    paths += INLINE.findall(body)
    for path in paths:
        target = resolve(absolute(module, path, mod_file))
        if target is not None and target != module and target != ():
            EDGES[module].add(target)
            WHY.setdefault((module, target), path)


def cycles(edges: dict) -> list:
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for node in list(edges):
        if node not in index:
            visit(node)
    return found


def folder(module: tuple) -> tuple:
    """The folder a module belongs to, as one node (a file at the top of `src` is its own)."""
    return module if is_mod(module) else module[:-1] if len(module) > 1 else module


def name(module: tuple) -> str:
    return "src/" + str(FILES[module].relative_to(SRC))


failed = False
for component in cycles(EDGES):
    failed = True
    print("files in a loop:", ", ".join(name(m) for m in component))
    for m in component:
        for t in sorted(EDGES[m] & set(component)):
            print(f"    {name(m)} -> {name(t)}   ({WHY[(m, t)]})")

# Folders: an edge between two different folders where neither contains the other.
FOLDER_EDGES = {}
for module, targets in EDGES.items():
    a = folder(module)
    for target in targets:
        b = folder(target)
        if a != b and a[: len(b)] != b and b[: len(a)] != a:
            FOLDER_EDGES.setdefault(a, set()).add(b)
for component in cycles(FOLDER_EDGES):
    failed = True
    print("folders in a loop:", ", ".join("src/" + "/".join(m) for m in component))

sys.exit(1 if failed else 0)
