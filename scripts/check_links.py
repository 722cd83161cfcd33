#!/usr/bin/env python3
"""Checks the relative links of the documentation: README.md, ARCHITECTURE.md, TESTING.md, bench/README.md and
docs/**/*.md. A link's file (or folder) must exist, and a #anchor into a Markdown file must match
one of its headings, slugged as GitHub does (lowercase, punctuation other than hyphens and spaces
dropped, spaces to hyphens, -1, -2 ... for repeats). External links (http, https, mailto) are not
checked; links inside code blocks and code spans are not links. Prints one line per broken link
(file:line: target) and exits 1, or prints a count and exits 0. Run from anywhere:
    python3 scripts/check_links.py
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+[\"'(][^)]*)?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.I)
FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def documents():
    names = ["README.md", "ARCHITECTURE.md", "TESTING.md", "bench/README.md"]
    docs = os.path.join(ROOT, "docs")
    names += sorted(os.path.relpath(p, ROOT)
                    for p in glob.glob(os.path.join(docs, "**", "*.md"), recursive=True))
    return [n for n in names if os.path.isfile(os.path.join(ROOT, n))]


def outside_fences(text):
    """(line number, line) outside fenced code blocks, as written."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        yield number, line


def prose_lines(text):
    """(line number, line) outside fenced code blocks, with code spans blanked."""
    for number, line in outside_fences(text):
        yield number, re.sub(r"(`+)(.+?)\1", lambda c: " " * len(c.group(0)), line)


def slug(heading):
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text)                            # inline HTML
    text = text.replace("`", "").lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, seen = set(), {}
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for _, line in prose_lines(text):
            found.update(HTML_ANCHOR.findall(line))
        for _, line in outside_fences(text):
            h = HEADING.match(line)
            if h:
                base = slug(h.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
        cache[path] = found
    return cache[path]


def broken(doc, target):
    """Whether a relative link from doc is broken: why, or None."""
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    if SCHEME.match(target) or target.startswith("//"):
        return None
    path, _, anchor = target.partition("#")
    path = path.split("?")[0]
    if path:
        base = ROOT if path.startswith("/") else os.path.dirname(os.path.join(ROOT, doc))
        full = os.path.normpath(os.path.join(base, path.lstrip("/")))
    else:
        full = os.path.join(ROOT, doc)
    if not os.path.exists(full):
        return "no such file"
    if anchor and full.endswith(".md") and os.path.isfile(full):
        if anchor.lower() not in anchors(full):
            return "no such heading"
    return None


def main():
    links, bad = 0, []
    for doc in documents():
        with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
            text = f.read()
        for number, line in prose_lines(text):
            targets = [m.group(1) for m in INLINE.finditer(line)]
            m = REFERENCE.match(line)
            if m:
                targets.append(m.group(1))
            for target in targets:
                if SCHEME.match(target.strip("<>")):
                    continue
                links += 1
                why = broken(doc, target)
                if why:
                    bad.append(f"{doc}:{number}: {target}")
    for line in bad:
        print(line)
    if bad:
        return 1
    print(f"check_links: {links} relative links in {len(documents())} files, all good")
    return 0


if __name__ == "__main__":
    sys.exit(main())
