#!/usr/bin/env python3
"""Checks that every file path a document names exists in the source tree, so that a
checklist in docs/CONTRIBUTING.md cannot keep sending a contributor to a file that was
renamed or removed.

A path is a run of path characters that starts with one of the tree's top folders
(src/, include/, tests/, python/, tools/, bench/, docs/, examples/, cmake/, .ci/) or with a
folder of src/ (core/, cpu/, cuda/, cuda_off/, algorithms/: read as src/...). A path with a
placeholder (`src/cpu/<op>.cpp`, `tests/ops/test_<op>.cpp`) must have its folder, the
part before the placeholder. A bare file name in backticks (`device_ops.cuh`) must be the
name of some file of the tree. Paths in `--section` only, when given (a Markdown heading).

Usage: check_doc_paths.py ROOT DOC [--section "## Checklists"]
       check_doc_paths.py --self-test
"""

import os
import re
import sys
import tempfile

TOP = ("src", "include", "tests", "python", "tools", "bench", "docs", "examples", "cmake", ".ci")
IN_SRC = ("core", "cpu", "cuda", "cuda_off", "algorithms")
PATH = re.compile(r"(?<![\w./<>-])((?:%s)/[\w./<>*-]*[\w>*])" % "|".join(re.escape(t) for t in TOP + IN_SRC))


def section_text(text, heading):
    if heading is None:
        return text
    level = heading.split(" ")[0]
    lines = text.splitlines()
    try:
        start = lines.index(heading)
    except ValueError:
        raise ValueError(f"no '{heading}' heading")
    out = []
    for line in lines[start + 1:]:
        if line.startswith("#") and len(line.split(" ")[0]) <= len(level) and line.split(" ")[0] == "#" * len(line.split(" ")[0]):
            break
        out.append(line)
    return "\n".join(out)


BARE = re.compile(r"`([\w-]+\.(?:cpp|hpp|cu|cuh|h|py|txt|md|cmake|sh))`")


def file_names(root):
    names = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and not d.startswith("build")]
        names.update(files)
    return names


def missing_paths(root, text):
    """[(path as written, what was looked for)] for each path that does not exist."""
    missing = []
    bare = BARE.findall(text)
    if bare:
        names = file_names(root)
        missing += [(name, name) for name in dict.fromkeys(bare) if name not in names]
    for path in dict.fromkeys(PATH.findall(text)):
        path = path.rstrip(".")
        wanted = path
        if "<" in path or "*" in path:
            wanted = path[:min(i for i in (path.find("<"), path.find("*")) if i >= 0)]
            wanted = wanted[:wanted.rfind("/") + 1] if "/" in wanted else wanted
        candidates = [os.path.join(root, wanted)]
        if path.split("/")[0] in IN_SRC:
            candidates.append(os.path.join(root, "src", wanted))
        if not any(os.path.exists(c) for c in candidates):
            missing.append((path, wanted))
    return missing


def self_test():
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "src", "cpu"))
        open(os.path.join(d, "src", "cpu", "backend.cpp"), "w").close()
        text = ("## Checklists\n1. Edit `src/cpu/backend.cpp`, cpu/backend.cpp, `backend.cpp` and `src/cpu/<op>.cpp`.\n"
                "## Other\nsrc/gone.cpp\n")
        assert missing_paths(d, section_text(text, "## Checklists")) == [], "existing paths must pass"
        assert [p for p, _ in missing_paths(d, text)] == ["src/gone.cpp"], "a missing path must be reported"
        assert [p for p, _ in missing_paths(d, "see src/cuda/<name>.cu")] == ["src/cuda/<name>.cu"], \
            "a placeholder under a missing folder must be reported"
        assert [p for p, _ in missing_paths(d, "in `gone.cuh`")] == ["gone.cuh"], "a missing file name must be reported"
        try:
            section_text(text, "## Nowhere")
        except ValueError:
            pass
        else:
            raise AssertionError("a missing section must fail")
    print("self-test passed")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if len(argv) not in (3, 5) or (len(argv) == 5 and argv[3] != "--section"):
        print(__doc__, file=sys.stderr)
        return 2
    root, doc = argv[1], argv[2]
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    try:
        text = section_text(text, argv[4] if len(argv) == 5 else None)
    except ValueError as e:
        print(f"{doc}: {e}", file=sys.stderr)
        return 1
    missing = missing_paths(root, text)
    for path, wanted in missing:
        print(f"{doc}: names {path}, but {wanted} is not in the tree", file=sys.stderr)
    if missing:
        return 1
    count = len(set(PATH.findall(text)))
    print(f"the {count} paths {doc} names exist")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
