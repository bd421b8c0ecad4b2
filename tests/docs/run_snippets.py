#!/usr/bin/env python3
"""Runs every fenced code block of a Markdown file as a reader would: the convention is
docs/CONTRIBUTING.md, "Snippets in the docs". In short:

  info string    what the block is and how it runs (in the document's work folder)
  cpp, c++       a program: compiled with `pkg-config --cflags --libs geblas` against the
                 scratch install and run (arguments: the `args` marker)
  cmake          a CMakeLists.txt: configured and built against the scratch install, with
                 the document's `file` blocks beside it
  python, py     run by the Python that the build's package is for
  sh, bash,      run by bash -e -o pipefail; exported variables and the current folder
  shell          carry over to the document's later blocks
  console        the lines that start with "$ " are run as sh; the rest is output
  text           shown, not run (output, syntax)

Markers, HTML comments on the lines right above the fence, one per line:

  <!-- snippet: skip (REASON) -->    not run; reported as skipped with the reason
  <!-- snippet: file NAME -->        the block is the file NAME, written to the work folder
                                     before any block runs, for a later block to build or run:
                                     it is checked, not run (cpp: compiled, and run only with
                                     `args`; python: byte-compiled; sh: bash -n; cmake as ever)
  <!-- snippet: data NAME...=PATH --> PATH (relative to the source tree) copied to each NAME
                                     in the work folder before any block runs (a placeholder
                                     graph; geblas tells formats by content)
  <!-- snippet: args ARG... -->      the arguments of a cpp program
  <!-- snippet: replace OLD=NEW -->  OLD in the block replaced by NEW before it runs (a
                                     placeholder such as /path/to/geblas)
  <!-- snippet: gpu -->              needs a CUDA device: run with --gpu (which runs every
                                     block), else reported as skipped
  <!-- snippet: python -->           a block of another kind (a shell command running a
                                     Python program) that needs the Python package:
                                     skipped, as python blocks are, without it

In ARG, NEW and PATH, @SOURCE_DIR@ is the source tree. The work folder stands in for the
repository root that the docs' commands start from: it holds a copy of data/ (the bundled
graph), not the sources. Every block runs with HOME set to a scratch folder whose .local
is a fresh `cmake --install` of the build, so a printed `$HOME/.local/...` is the install;
PATH starts with $HOME/.local/bin.

A block without an info string, an unknown info string or marker, or a marker above no
fence fails the run, so every block a document adds is classified. Exit status: 0 when
every block that ran passed, 1 otherwise; with --gpu, 77 when there is no usable CUDA
device (or the build has no CUDA backend) and so nothing ran. Python blocks are skipped,
with the reason, when the build has no Python package (--no-python-package).
"""

import argparse
import os
import pathlib
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

KINDS = {"cpp": "cpp", "c++": "cpp", "cmake": "cmake", "python": "python", "py": "python",
         "sh": "sh", "bash": "sh", "shell": "sh", "console": "console", "text": "text"}
DIRECTIVES = ("skip", "file", "data", "args", "replace", "gpu", "python")
MARKER = re.compile(r"^\s*<!--\s*snippet:\s*(.*?)\s*-->\s*$")
# Any indentation: a fence inside a list item is still a block the reader sees.
FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})\s*([^`\s]*)[^`]*$")
# How long one block may run: about 50 times the slowest block seen, the README's first
# program compiled and run (about 6 s on the 2-core machine under other builds), so
# that only a hang reaches it.
BLOCK_TIMEOUT_S = 300


class DocError(Exception):
    pass


class Block:
    def __init__(self, doc, line, info, body):
        self.doc, self.line, self.info, self.body = doc, line, info, body
        self.kind = None
        self.skip = None
        self.file = None
        self.data = []
        self.args = []
        self.replace = []
        self.gpu = False
        self.python = False

    @property
    def where(self):
        return f"{self.doc}:{self.line}"


def parse_marker(block, text, where):
    name, _, rest = text.partition(" ")
    rest = rest.strip()
    if name not in DIRECTIVES:
        raise DocError(f"{where}: unknown snippet marker '{name}' (known: {', '.join(DIRECTIVES)})")
    if name == "skip":
        m = re.fullmatch(r"\((.+)\)", rest)
        if not m:
            raise DocError(f"{where}: 'snippet: skip' needs a reason in parentheses: skip (why)")
        block.skip = m.group(1)
    elif name == "file":
        if not re.fullmatch(r"[A-Za-z0-9_.+-]+(/[A-Za-z0-9_.+-]+)*", rest) or ".." in rest.split("/"):
            raise DocError(f"{where}: 'snippet: file' needs a relative file name, got '{rest}'")
        block.file = rest
    elif name in ("data", "replace"):
        old, sep, new = rest.partition("=")
        if not sep or not old:
            raise DocError(f"{where}: 'snippet: {name}' needs NAME=VALUE, got '{rest}'")
        getattr(block, name).append((old, new))
    elif name == "args":
        block.args = shlex.split(rest)
    elif name == "gpu":
        if rest:
            raise DocError(f"{where}: 'snippet: gpu' takes no argument")
        block.gpu = True
    elif name == "python":
        if rest:
            raise DocError(f"{where}: 'snippet: python' takes no argument")
        block.python = True


def parse(path, display):
    """The document's fenced blocks, with their markers, classified."""
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError) as e:
        raise DocError(f"cannot read {display}: {e}")
    blocks, pending, errors, i = [], [], [], 0
    while i < len(lines):
        line = lines[i]
        m_marker = MARKER.match(line)
        m_fence = FENCE.match(line)
        if m_marker:
            pending.append((i + 1, m_marker.group(1)))
            i += 1
            continue
        if not m_fence:
            if pending:
                raise DocError(f"{display}:{pending[0][0]}: a snippet marker must be right above a fence")
            i += 1
            continue
        indent, fence, info = len(m_fence.group(1)), m_fence.group(2), m_fence.group(3).lower()
        start = i + 1
        body = []
        i += 1
        while i < len(lines):
            close = re.match(r"^[ \t]*(`{3,}|~{3,})\s*$", lines[i])
            if close and close.group(1)[0] == fence[0] and len(close.group(1)) >= len(fence):
                break
            raw = lines[i]
            body.append(raw[min(indent, len(raw) - len(raw.lstrip(" "))):])
            i += 1
        else:
            raise DocError(f"{display}:{start}: the fence opened here is never closed")
        i += 1
        block = Block(display, start, info, "\n".join(body) + "\n")
        try:  # every block's problem is reported, not only the first
            for line_no, text in pending:
                parse_marker(block, text, f"{display}:{line_no}")
            if not info:
                if block.skip is None:
                    raise DocError(f"{block.where}: a fenced block without an info string: give it one "
                                   f"({', '.join(sorted(set(KINDS)))}) or mark it <!-- snippet: skip (reason) -->")
            elif info not in KINDS:
                raise DocError(f"{block.where}: unknown info string '{info}' (known: {', '.join(sorted(KINDS))})")
            else:
                block.kind = KINDS[info]
            if block.file and block.kind in ("text", "console"):
                raise DocError(f"{block.where}: 'snippet: file' applies to cpp, cmake, python and sh blocks")
            if block.args and block.kind != "cpp":
                raise DocError(f"{block.where}: 'snippet: args' applies to cpp blocks only")
        except DocError as e:
            errors.append(str(e))
        pending = []
        blocks.append(block)
    if pending:
        errors.append(f"{display}:{pending[0][0]}: a snippet marker must be right above a fence")
    if errors:
        raise DocError("\n".join(errors))
    return blocks


def console_commands(body):
    """The commands of a console block: lines after "$ ", with their continuation lines."""
    out, continuing = [], False
    for line in body.split("\n"):
        if line.startswith("$ ") or continuing:
            out.append(line[2:] if line.startswith("$ ") and not continuing else line)
            continuing = line.endswith("\\")
    return "\n".join(out) + "\n"


class Runner:
    def __init__(self, args):
        self.source = pathlib.Path(args.source_dir).resolve()
        self.build = pathlib.Path(args.build_dir).resolve()
        self.work = pathlib.Path(args.work_dir).resolve()
        self.python = args.python
        self.cxx = args.cxx
        self.home = self.work / "home"
        self.prefix = self.home / ".local"
        self.files = self.work / "files"
        self.scripts = self.work / "blocks"
        self.env_file = self.work / "env.sh"
        self.timeout_s = args.timeout

    def subst(self, text):
        return text.replace("@SOURCE_DIR@", str(self.source))

    def prepare(self, blocks):
        if self.work.exists():
            shutil.rmtree(self.work)
        for d in (self.scripts, self.home):
            d.mkdir(parents=True)
        # A copy, so that a block that writes beside the graph cannot touch the source tree.
        if not (self.source / "data").is_dir():
            raise DocError(f"{self.source} has no data/ folder: is it the geblas source tree?")
        shutil.copytree(self.source / "data", self.files / "data")
        install = subprocess.run(["cmake", "--install", str(self.build), "--prefix", str(self.prefix)],
                                 capture_output=True, text=True)
        if install.returncode:
            raise DocError(f"cmake --install {self.build} failed:\n{install.stdout}{install.stderr}")
        # A reader's shell: no build-tree paths, the install's programs first on PATH.
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "LD_LIBRARY_PATH", "PKG_CONFIG_PATH", "CMAKE_PREFIX_PATH")}
        env["HOME"] = str(self.home)
        env["PATH"] = f"{self.prefix / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}"
        with open(self.env_file, "w") as f:
            for k in ("PYTHONPATH", "LD_LIBRARY_PATH", "PKG_CONFIG_PATH", "CMAKE_PREFIX_PATH"):
                f.write(f"unset {k}\n")
            for k, v in sorted(env.items()):
                if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
                    f.write(f"export {k}={shlex.quote(v)}\n")
            f.write(f"cd {shlex.quote(str(self.files))}\n")
        for b in blocks:
            if b.skip is not None:
                continue
            for names, path in b.data:
                src = pathlib.Path(self.subst(path))
                src = src if src.is_absolute() else self.source / src
                if not src.is_file():
                    raise DocError(f"{b.where}: 'snippet: data {names}={path}': no file {src}")
                for name in names.split():
                    if name.startswith("/") or ".." in name.split("/"):
                        raise DocError(f"{b.where}: 'snippet: data': '{name}' is not a relative name")
                    (self.files / name).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(src, self.files / name)
            if b.file:
                (self.files / b.file).parent.mkdir(parents=True, exist_ok=True)
                (self.files / b.file).write_text(self.body(b))

    def body(self, b):
        text = b.body
        for old, new in b.replace:
            if old not in text:
                raise DocError(f"{b.where}: 'snippet: replace {old}=...': '{old}' is not in the block")
            text = text.replace(old, self.subst(new))
        return text

    def shell_script(self, n, b):
        """The bash script that runs block n in the document's carried-over environment."""
        body = self.body(b)
        if b.kind == "console":
            body = console_commands(body)
        q = shlex.quote
        if b.kind == "sh" and b.file:
            run = f"bash -n {q(str(self.files / b.file))}\n"
        elif b.kind in ("sh", "console"):
            block_file = self.scripts / f"{n:02d}.sh"
            block_file.write_text(body)
            run = f"set -eo pipefail\nsource {q(str(block_file))}\nset +eo pipefail\n"
        elif b.kind == "python" and b.file:
            run = (f"{q(self.python)} -c 'import py_compile, sys; py_compile.compile(sys.argv[1], "
                   f"cfile=sys.argv[2], doraise=True)' {q(str(self.files / b.file))} "
                   f"{q(str(self.scripts / f'{n:02d}.pyc'))}\n")
        elif b.kind == "python":
            block_file = self.scripts / f"{n:02d}.py"
            block_file.write_text(body)
            run = f"{q(self.python)} {q(str(block_file))}\n"
        elif b.kind == "cpp":
            source = self.files / b.file if b.file else self.scripts / f"{n:02d}.cpp"
            if not b.file:
                source.write_text(body)
            exe = self.scripts / f"{n:02d}.exe"
            pc = f"PKG_CONFIG_PATH={q(str(self.prefix / 'lib' / 'pkgconfig'))}"
            args = " ".join(q(self.subst(a)) for a in b.args)
            run = ("command -v pkg-config >/dev/null || { echo 'pkg-config is not installed "
                   "(Debian: apt-get install pkg-config)'; exit 127; }\n"
                   f"set -e\nflags=$({pc} pkg-config --cflags --libs geblas)\n"
                   f"{q(self.cxx)} {q(str(source))} $flags -o {q(str(exe))}\nset +e\n")
            if b.args or not b.file:
                run += f"{q(str(exe))} {args}\n"
        elif b.kind == "cmake":
            project = self.scripts / f"{n:02d}_cmake"
            shutil.copytree(self.files, project)
            (project / "CMakeLists.txt").write_text(body)
            gen = "-G Ninja " if shutil.which("ninja") else ""
            run = (f"set -e\ncmake -S {q(str(project))} -B {q(str(project / 'build'))} {gen}"
                   f"-DCMAKE_PREFIX_PATH=\"$HOME/.local\" -DCMAKE_BUILD_TYPE=Release\n"
                   f"cmake --build {q(str(project / 'build'))}\nset +e\n")
        else:
            raise AssertionError(b.kind)
        # The block's exports and folder carry over only when it succeeds.
        env = q(str(self.env_file))
        return (f"source {env}\n{run}rc=$?\nif [ $rc -eq 0 ]; then\n"
                f"  {{ export -p; printf 'cd %q\\n' \"$PWD\"; }} > {env}.new && mv {env}.new {env}\nfi\n"
                f"exit $rc\n")

    def run_block(self, n, b):
        script = self.scripts / f"{n:02d}.run.sh"
        script.write_text(self.shell_script(n, b))
        t0 = time.monotonic()
        # Its own process group, so that a block that hangs is ended with all it started.
        with subprocess.Popen(["bash", str(script)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, errors="replace",
                              start_new_session=True) as p:
            try:
                out, _ = p.communicate(timeout=self.timeout_s)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                out, _ = p.communicate()
                return False, f"timed out after {self.timeout_s} s", out
        dt = time.monotonic() - t0
        return p.returncode == 0, f"exit {p.returncode}, {dt:.1f} s", out


def why_not_run(b, args):
    """The report line of a block that is not run, or None for one that runs."""
    if b.skip is not None:
        return f"skipped ({b.skip})"
    if b.kind == "text":
        return "shown, not run"
    if b.gpu and not args.gpu:
        return "skipped (needs a CUDA device: run by the gpu test, --gpu)"
    if (b.kind == "python" or b.python) and args.no_python_package:
        return "skipped (the build has no Python package: GEBLAS_PYTHON=OFF)"
    return None


def gpu_absence(build_dir):
    """Why GPU blocks cannot run here, or None when they can."""
    cache = pathlib.Path(build_dir) / "CMakeCache.txt"
    m = re.search(r"^CMAKE_CUDA_COMPILER:[A-Z]+=(.+)$", cache.read_text(), re.MULTILINE) if cache.exists() else None
    if not m or m.group(1).endswith("NOTFOUND"):
        return f"the build in {build_dir} has no CUDA backend"
    smi = shutil.which("nvidia-smi")
    if not smi:
        return "no nvidia-smi: no CUDA device"
    p = subprocess.run([smi, "-L"], capture_output=True, text=True)
    if p.returncode or "GPU" not in p.stdout:
        return "nvidia-smi lists no CUDA device"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("document", help="the Markdown file")
    ap.add_argument("--source-dir", required=True, help="the geblas source tree")
    ap.add_argument("--build-dir", required=True, help="a geblas build to install into the scratch prefix")
    ap.add_argument("--work-dir", required=True, help="scratch folder (emptied first)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter of the build's Python package")
    ap.add_argument("--cxx", default=os.environ.get("CXX", "c++"), help="the C++ compiler for cpp blocks")
    ap.add_argument("--gpu", action="store_true", help="run the blocks marked gpu too")
    ap.add_argument("--timeout", type=float, default=BLOCK_TIMEOUT_S, help="seconds one block may run")
    ap.add_argument("--no-python-package", action="store_true",
                    help="the build has no Python package: python blocks are skipped")
    args = ap.parse_args()
    doc = pathlib.Path(args.document).resolve()
    source = pathlib.Path(args.source_dir).resolve()
    display = doc.relative_to(source).as_posix() if doc.is_relative_to(source) else str(doc)
    try:
        blocks = parse(doc, display)
        if args.gpu:
            why = gpu_absence(args.build_dir)
            if why:
                print(f"{display}: the blocks marked gpu are skipped: {why}")
                return 77
        not_run = [why_not_run(b, args) for b in blocks]
        runner = Runner(args)
        if any(why is None for why in not_run):  # no install for a document that runs nothing
            runner.prepare(blocks)
    except DocError as e:
        problems = str(e).split("\n")
        for p in problems:
            print(f"error: {p}")
        print(f"0 passed, {len(problems)} failed")
        return 1
    passed = failed = skipped = 0
    for n, (b, why) in enumerate(zip(blocks, not_run)):
        label = f"{b.where} ({b.info or 'no info string'})"
        if why is not None:
            print(f"{label}: {why}")
            skipped += why.startswith("skipped")
            continue
        try:
            ok, how, out = runner.run_block(n, b)
        except DocError as e:
            ok, how, out = False, str(e), ""
        print(f"{label}: {'ok' if ok else 'FAILED'} ({how})")
        if not ok:
            lines = out.rstrip().split("\n")
            if len(lines) > 40:  # a compiler's first errors and a program's last words
                lines = lines[:20] + [f"[... {len(lines) - 40} lines ...]"] + lines[-20:]
            print("    " + "\n    ".join(lines))
        passed += ok
        failed += not ok
    if failed:
        print(f"the work folder is kept for a look: {runner.files}")
    elif runner.work.exists():
        shutil.rmtree(runner.work)  # the install is a copy of the build's libraries
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
