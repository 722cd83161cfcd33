#!/usr/bin/env python3
"""The structure rules of ARCHITECTURE.md, checked: no file in src/ over 600 lines (SQL and other
data aside), no function over 100 lines, no import cycle between sibling modules (tests aside).
Reads the sources as text (approximately: a function ends at the first closing brace at its own
indent).
Prints what breaks a rule and exits 1, or prints nothing and exits 0. Run from the checkout:
    python3 scripts/structure.py
"""
import os
import re
import sys

MAX_FILE, MAX_FN = 600, 100


def sources():
    out = {}
    for root, _, files in os.walk("src"):
        for f in files:
            if f.endswith(".rs"):
                path = os.path.join(root, f)
                out[path] = open(path).read()
    return out


def long_files(files):
    return [f"{p}: {t.count(chr(10))} lines (most {MAX_FILE})"
            for p, t in files.items() if t.count("\n") > MAX_FILE]


def long_functions(files):
    found = []
    start = re.compile(r'^(\s*)(pub(\([a-z]+\))? )?(const )?(unsafe )?(extern "C" )?fn \w+')
    for path, text in files.items():
        lines = text.split("\n")
        for i, line in enumerate(lines):
            m = start.match(line)
            if not m:
                continue
            indent = m.group(1)
            end = i
            for j in range(i, len(lines)):
                if j == i and line.rstrip().endswith("}"):
                    end = j
                    break
                if j > i and lines[j].startswith(indent + "}") and len(lines[j].strip()) <= 2:
                    end = j
                    break
            if end - i + 1 > MAX_FN:
                found.append(f"{path}:{i + 1}: a function of {end - i + 1} lines (most {MAX_FN})")
    return found


def module_of(path):
    parts = path[4:-3].split("/")
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


def cycles(files):
    mods = {module_of(p): t for p, t in files.items()}

    def resolve(mod, path):
        parts = path.split("::")
        if parts[0] == "crate":
            base, parts = [], parts[1:]
        elif parts[0] == "super":
            base = list(mod)
            while parts and parts[0] == "super":
                base, parts = base[:-1], parts[1:]
        elif parts[0] == "self":
            base, parts = list(mod), parts[1:]
        else:
            return None
        for p in parts:
            if tuple(base + [p]) in mods:
                base.append(p)
            else:
                break
        return tuple(base)

    edges = set()
    for mod, text in mods.items():
        # Tests, inline or in a module's tests.rs, may reach anywhere.
        if mod[-1:] == ("tests",):
            continue
        text = re.split(r"#\[cfg\(test\)\]\s*mod tests", text)[0]
        text = "\n".join(l for l in text.split("\n") if not l.strip().startswith("//"))
        for m in re.finditer(r"\b((?:crate|super|self)(?:::(?:super|\w+))+)", text):
            t = resolve(mod, m.group(1))
            if t is not None and t != mod:
                edges.add((mod, t))
        for m in re.finditer(r"use\s+((?:crate|super|self)(?:::\w+)*)::\{([^;]*)\}", text, re.S):
            for item in re.findall(r"\b(\w+)", m.group(2)):
                t = resolve(mod, m.group(1) + "::" + item)
                if t is not None and t != mod:
                    edges.add((mod, t))
    found = set()
    for a, b in edges:
        n = 0
        while n < min(len(a), len(b)) and a[n] == b[n]:
            n += 1
        if n >= len(a) or n >= len(b):
            continue  # a module and its own descendant
        x, y = a[: n + 1], b[: n + 1]
        if any(p[: n + 1] == y and q[: n + 1] == x for p, q in edges):
            found.add(tuple(sorted(["::".join(x), "::".join(y)])))
    return [f"import cycle: {x} <-> {y}" for x, y in sorted(found)]


def main():
    files = sources()
    problems = long_files(files) + long_functions(files) + cycles(files)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
