"""The import graph of src/ (the protocol core): which file uses which, the layer rules, and no circle.

Run by scripts/check-layers.sh. The HTTP transport (crates/tinymcp-http) and the binary
(crates/tinymcp-cli) are crates of their own, which reach the core through its public API only
(the compiler checks that; a transport's through `transport::kit`). An edge goes from a file to the file that defines what it
names through `crate::...` or `super::...`; names re-exported at the crate root resolve through
src/lib.rs's `pub use` lines. The server core (`src/server/*.rs`) may name `Server`
(`src/server/mod.rs`): a request's context holds the server that runs it. Those edges are left
out of the circle search, since `Server` sits above the features that the core sits below. Tests (`#[cfg(test)]` onwards) are left out, and so is a parent naming its own child module
(`relay::Setup` in `server/mod.rs`), which is how Rust nests modules, not an import.
"""
import os
import re
import sys

SRC = "src"


def module_of(path):
    parts = path[len(SRC) + 1:-3].split("/")
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return parts


def file_of(parts):
    """The file defining the longest prefix of `parts` that is a module."""
    for n in range(len(parts), -1, -1):
        base = os.path.join(SRC, *parts[:n]) if n else SRC
        for candidate in (base + ".rs", os.path.join(base, "mod.rs")) if n else (os.path.join(SRC, "lib.rs"),):
            if os.path.isfile(candidate):
                return candidate, parts[n:]
    return None, parts


def split_top(text):
    items, depth, cur = [], 0, ""
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        items.append(cur.strip())
    return items


def paths(tree):
    """`a::{b, c::D}` -> [[a, b], [a, c, D]]."""
    tree = tree.strip()
    m = re.match(r"^([\w:]*?)(?:::)?\{(.*)\}$", tree, re.S)
    if m:
        head = [p for p in m.group(1).split("::") if p]
        out = []
        for item in split_top(m.group(2)):
            for p in paths(item):
                out.append(head + p if p != ["self"] else head)
        return out
    tree = tree.split(" as ")[0]
    return [[p for p in tree.split("::") if p and p != "self"]]


USE = re.compile(r"\b(crate|super)::((?:\w+::)*(?:\{[^;]*?\}|\w+))", re.S)


def references(path):
    text = open(path).read()
    text = text.split("#[cfg(test)]")[0]
    text = re.sub(r"//[^\n]*", "", text)
    mod = module_of(path)
    if not path.endswith(("mod.rs", "lib.rs", "main.rs")):
        parent = mod[:-1]
    else:
        parent = mod[:-1] if mod else []
    for m in USE.finditer(text):
        base = [] if m.group(1) == "crate" else parent
        for p in paths(m.group(2)):
            yield base + p


def root_exports():
    names = {}
    text = open(os.path.join(SRC, "lib.rs")).read()
    for m in re.finditer(r"pub use ([^;]+);", text):
        for p in paths(m.group(1)):
            if p:
                names[p[-1]] = p
    return names


def main():
    files = []
    for d, _, fs in os.walk(SRC):
        files += [os.path.join(d, f) for f in fs if f.endswith(".rs")]
    exports = root_exports()
    graph = {}
    for f in sorted(files):
        if f == "src/lib.rs":
            continue
        edges = set()
        for p in references(f):
            if len(p) == 1 and p[0] in exports:
                p = exports[p[0]]
            target, _ = file_of(p)
            if target and target != f and target != "src/lib.rs":
                edges.add(target)
        graph[f] = edges

    problems = []

    def rule(prefix, allowed, why):
        for f, edges in graph.items():
            if f.startswith(prefix):
                for t in edges:
                    if not any(t.startswith(a) for a in allowed):
                        problems.append(f"{f} uses {t}: {why}")

    rule("src/wire/", ["src/wire/", "src/util/"], "the wire imports nothing of the crate but util's leaves")
    rule("src/util/", ["src/util/"], "util is leaves: they import nothing of the crate outside util")
    rule("src/features/", ["src/wire/", "src/util/", "src/features/", "src/server/context.rs"],
         "features use the wire, util and the request context only (never Server)")
    for f in ["src/server/context.rs", "src/server/session.rs", "src/server/connection.rs",
              "src/server/listen.rs", "src/server/pool.rs", "src/server/sink.rs"]:
        for t in graph.get(f, ()):
            if t.startswith("src/features/"):
                problems.append(f"{f} uses {t}: connection, session and context know no feature types")
    rule("src/transport/", ["src/wire/", "src/util/", "src/error.rs", "src/transport/", "src/server/mod.rs",
                            "src/server/connection.rs", "src/server/sink.rs", "src/server/pool.rs",
                            "src/server/session.rs"],
         "transports read only the envelope and the connection")

    # No circle: depth-first search for a back edge. The core naming `Server` is no circle.
    server = "src/server/mod.rs"
    acyclic = {f: {t for t in edges if not (t == server and f.startswith("src/server/"))} for f, edges in graph.items()}
    state, stack = {}, []

    def visit(f):
        state[f] = 1
        stack.append(f)
        for t in sorted(acyclic.get(f, ())):
            if state.get(t) == 1:
                cycle = stack[stack.index(t):] + [t]
                problems.append("import circle: " + " -> ".join(cycle))
            elif t in acyclic and not state.get(t):
                visit(t)
        stack.pop()
        state[f] = 2

    for f in sorted(graph):
        if not state.get(f):
            visit(f)

    if "-v" in sys.argv:
        for f, edges in sorted(graph.items()):
            print(f, "->", " ".join(sorted(edges)))
    for p in problems:
        print("check-layers:", p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
