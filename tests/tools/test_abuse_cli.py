#!/usr/bin/env python3
"""The geblas tool under abuse: hostile or unlucky inputs and outputs, each run with an
expected exit code, a pattern its message must match, a time bound and a memory bound
(RLIMIT_AS; not under the address sanitizer, whose shadow memory alone is terabytes of
address space: --no-address-limit), in a scratch folder whose every file is hashed before and after, so that a
file damaged, replaced or left behind fails the case as surely as a wrong exit code.

    test_abuse_cli.py GEBLAS [-k SUBSTRING] [--list] [--no-address-limit]

Exit status 0 when every case holds; each failure is printed with its case name, the
command, the exit code and the tool's stderr.
"""
import argparse
import gzip
import hashlib
import os
import re
import resource
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

# ------------------------------------------------------------------------ inputs

SMALL_MTX = (b"%%MatrixMarket matrix coordinate real general\n% a small graph\n"
             b"4 4 5\n1 2 1.5\n2 3 2\n3 1 0.5\n3 4 1\n4 1 3\n")
SMALL_ENTRIES = 5


def edge_list(n: int) -> bytes:
    """n distinct weighted edges on n vertices, well over the 64 KiB detection prefix."""
    return b"".join(b"%d %d %d.25\n" % (i, (i * 7919 + 13) % n, i % 89) for i in range(n))


BIG_N = 20000
BIG_TXT = edge_list(BIG_N)


def files(**named: bytes) -> Callable[[str], None]:
    def setup(d: str) -> None:
        for name, data in named.items():
            with open(os.path.join(d, name.replace("__", ".")), "wb") as f:
                f.write(data)
    return setup


# ---------------------------------------------------------------- folder snapshots

def snapshot(d: str) -> dict:
    """Every entry under d (links not followed): its kind and, for a file, its hash."""
    out = {}
    for root, dirs, names in os.walk(d):
        for name in dirs + names:
            p = os.path.join(root, name)
            rel = os.path.relpath(p, d)
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = "link -> " + os.readlink(p)
            elif stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    out[rel] = "file " + hashlib.sha256(f.read()).hexdigest()
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = "dir"
            elif stat.S_ISFIFO(st.st_mode):
                out[rel] = "fifo"
            elif stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
                out[rel] = "device %d" % st.st_rdev
            else:
                out[rel] = "other"
    return out


def is_csv(header: str, rows: int) -> Callable[[str], bool]:
    def check(p: str) -> bool:
        with open(p) as f:
            lines = f.read().splitlines()
        return lines[0] == header and len(lines) == rows + 1
    return check


def reads_back(entries: int) -> Callable[[str], bool]:
    def check(p: str) -> bool:
        opener = gzip.open if p.endswith(".gz") else open
        with opener(p, "rt") as f:
            lines = [l for l in f.read().splitlines() if not l.startswith("%")]
        return len(lines) == entries + 1 and int(lines[0].split()[2]) == entries
    return check


# ------------------------------------------------------------------------- runs

@dataclass
class Result:
    code: int
    out: bytes
    err: bytes
    seconds: float


# False for a tool built with the address sanitizer: the time bounds and the tool's own
# stream limit still hold there, the address-space bound cannot.
ADDRESS_LIMIT = True


def limits(mem_mib: int) -> Callable[[], None]:
    def apply() -> None:
        if ADDRESS_LIMIT:
            resource.setrlimit(resource.RLIMIT_AS, (mem_mib << 20, mem_mib << 20))
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
            signal.signal(s, signal.SIG_DFL)
    return apply


def feed(fd: int, data) -> None:
    """Writes data (bytes, or an iterator of chunks: an endless stream) to fd until done
    or the reader goes away, then closes it."""
    try:
        for chunk in ([data] if isinstance(data, bytes) else data):
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view):]
    except OSError:
        pass
    finally:
        os.close(fd)


def run(tool: str, args: list, d: str, mem_mib: int, timeout: float, stdin=None, pass_fds=()) -> Result:
    """Runs the tool in d; stdin is bytes or a chunk generator (fed through a pipe by a
    thread), a file object or descriptor, or None (/dev/null)."""
    start = time.monotonic()
    feeder, stdin_arg, read_end = None, subprocess.DEVNULL, None
    if isinstance(stdin, bytes) or callable(stdin):
        read_end, write_end = os.pipe()
        stdin_arg = read_end
        data = stdin() if callable(stdin) else stdin
        feeder = threading.Thread(target=feed, args=(write_end, data), daemon=True)
    elif stdin is not None:
        stdin_arg = stdin
    env = dict(os.environ, OMP_NUM_THREADS="2")
    p = subprocess.Popen([tool] + args, cwd=d, stdin=stdin_arg, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=limits(mem_mib), pass_fds=pass_fds, env=env)
    if read_end is not None:
        os.close(read_end)
        feeder.start()
    try:
        out, err = p.communicate(timeout=timeout * 2)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        err += b" [killed after %.0f s]" % (timeout * 2)
    if feeder:
        feeder.join(5)
    return Result(p.returncode, out, err, time.monotonic() - start)


# ------------------------------------------------------------------------ cases

@dataclass
class Case:
    name: str
    args: list                      # after the tool; "{d}" is the scratch folder
    code: int                       # expected exit status (negative: killed by that signal)
    pattern: str                    # regex the message (stderr) must match; for code 0, stdout
    setup: Optional[Callable] = None
    stdin: object = None            # bytes, a callable giving chunks (a feeder thread), or a path
    changes: dict = field(default_factory=dict)  # entry -> check(path) for entries meant to change
    time: float = 10.0              # seconds
    mem_mib: int = 1024             # address-space limit
    driver: Optional[Callable] = None  # a run of its own: driver(tool, case, d) -> Result


def endless(line: bytes) -> Callable:
    def chunks():
        block = line * 65536
        while True:
            yield block
    return chunks


def drive_fifo(tool, case, d):
    """A small file through a named FIFO: its writer comes and goes once."""
    fifo = os.path.join(d, "g.fifo")
    os.mkfifo(fifo)

    def writer():
        with open(fifo, "wb") as f:
            f.write(SMALL_MTX)
    t = threading.Thread(target=writer, daemon=True)
    t.start()
    r = run(tool, case.args, d, case.mem_mib, case.time)
    t.join(1)
    os.unlink(fifo)
    return r


def drive_pipe_fd(tool, case, d):
    """<(cat big.txt): the tool is given /dev/fd/N of a pipe."""
    rfd, wfd = os.pipe()
    t = threading.Thread(target=lambda: (os.write(wfd, BIG_TXT) and None, os.close(wfd)), daemon=True)
    t.start()
    args = [a.replace("{fd}", str(rfd)) for a in case.args]
    r = run(tool, args, d, case.mem_mib, case.time, pass_fds=(rfd,))
    os.close(rfd)
    t.join(1)
    return r


def drive_socket(tool, case, d):
    a, b = socket.socketpair()
    def send() -> None:
        try:
            b.sendall(BIG_TXT)
        except OSError:
            pass            # the tool went away early: its exit code says why
        finally:
            b.close()
    t = threading.Thread(target=send, daemon=True)
    t.start()
    r = run(tool, case.args, d, case.mem_mib, case.time, stdin=a.fileno())
    a.close()
    t.join(1)
    return r


def drive_closed_pipe(tool, case, d):
    """`geblas ... --output - | head -1`: stdout closed after the first line."""
    start = time.monotonic()
    p = subprocess.Popen([tool] + case.args, cwd=d, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, preexec_fn=limits(case.mem_mib))
    p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read()
    p.wait(timeout=case.time * 2)
    return Result(p.returncode, b"", err, time.monotonic() - start)


def drive_stdout_file(tool, case, d):
    """Standard output redirected to a file of the folder, and --output naming it through
    /dev/fd/1: written in place, so the CSV and the report both land in that file."""
    start = time.monotonic()
    with open(os.path.join(d, "stdout.txt"), "wb") as out:
        p = subprocess.run([tool] + case.args, cwd=d, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE,
                           preexec_fn=limits(case.mem_mib), timeout=case.time * 2)
    with open(os.path.join(d, "stdout.txt"), "rb") as f:
        text = f.read()
    return Result(p.returncode, text, p.stderr, time.monotonic() - start)


def drive_signal(sig):
    """A conversion interrupted by `sig` while its temporary file is being written; a
    previous output must stay as it was and no temporary file may remain (for SIGKILL,
    the next write into the folder removes the one the killed process left)."""
    def drive(tool, case, d):
        start = time.monotonic()
        p = subprocess.Popen([tool] + case.args, cwd=d, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, preexec_fn=limits(case.mem_mib))
        seen = False
        while p.poll() is None and time.monotonic() - start < case.time:
            temps = [n for n in os.listdir(d) if n.startswith(".geblas-tmp-")]
            if temps:
                try:
                    if os.path.getsize(os.path.join(d, temps[0])) > 0:
                        seen = True
                        break
                except FileNotFoundError:
                    pass
            time.sleep(0.002)
        if not seen:
            p.kill()
            p.wait()
            return Result(-998, b"", b"no temporary file with bytes was seen before the run ended", 0)
        p.send_signal(sig)
        out, err = p.communicate(timeout=case.time)
        r = Result(p.returncode, out, err, time.monotonic() - start)
        if sig == signal.SIGKILL:
            left = [n for n in os.listdir(d) if n.startswith(".geblas-tmp-")]
            if not left:
                return Result(-997, b"", b"kill -9 left no temporary file: the case tests nothing", 0)
            later = run(tool, ["pagerank", "small.mtx", "--output", "later.csv"], d, case.mem_mib, case.time)
            if later.code != 0:
                return later
        return r
    return drive


def big_mtx_gz(d: str) -> None:
    """An input large enough that writing its gzip conversion takes a while."""
    n = 400000
    with open(os.path.join(d, "big.txt"), "wb") as f:
        f.write(edge_list(n))
    with open(os.path.join(d, "out.mtx.gz"), "wb") as f:
        f.write(b"the previous output, which must survive")
    files(small__mtx=SMALL_MTX)(d)


def cases(have_root: bool) -> list:
    rank_csv = is_csv("vertex,rank", 4)
    big_out = r"entries: %d\b" % BIG_N
    long_name = "y" * 250 + ".csv"
    C = []
    # ---- inputs read once: pipes, FIFOs, sockets, standard input
    C += [
        Case("stdin pipe past the detection prefix", ["info", "-"], 0, big_out, stdin=BIG_TXT),
        Case("/dev/fd pipe (process substitution)", ["info", "/dev/fd/{fd}"], 0, big_out, driver=drive_pipe_fd),
        Case("/dev/stdin", ["info", "/dev/stdin"], 0, big_out, stdin=BIG_TXT),
        Case("socket on stdin", ["info", "-"], 0, big_out, driver=drive_socket),
        Case("small file through a FIFO", ["info", "g.fifo"], 0, r"entries: %d\b" % SMALL_ENTRIES, driver=drive_fifo),
        Case("gzip through a pipe", ["info", "-"], 0, big_out, stdin=gzip.compress(BIG_TXT)),
        Case("empty stdin", ["info", "-"], 1, r"<stdin>.*it is empty", stdin=b""),
        Case("banner-only pipe is not called empty", ["info", "-"], 1, r"^(?!.*empty file).*missing size line",
             stdin=b"%%MatrixMarket matrix coordinate real general\n"),
        Case("duplicate on a stream names the entry", ["info", "-"], 1,
             r"duplicate edge \(0, 1\).*--duplicates.*cannot be read again", stdin=b"0 1\n1 2\n0 1\n"),
    ]
    # ---- unbounded inputs
    C += [
        Case("/dev/zero on stdin", ["info", "-"], 1, r"binary bytes", stdin=open("/dev/zero", "rb")),
        Case("/dev/zero by name", ["info", "/dev/zero"], 1, r"binary bytes"),
        Case("/dev/zero read as an edge list", ["info", "/dev/zero", "--format", "edges", "--stream-limit", "8M"], 1,
             r"limit of 8388608 bytes.*--stream-limit"),
        Case("/dev/urandom by name", ["info", "/dev/urandom"], 1, r"binary bytes|cannot tell the format"),
        Case("/dev/urandom as Matrix Market", ["info", "/dev/urandom", "--format", "mtx"], 1, r"banner"),
        Case("endless edge stream with a limit", ["info", "-", "--duplicates", "sum", "--stream-limit", "4M"], 1,
             r"limit of 4194304 bytes", stdin=endless(b"1 2\n")),
        Case("stream limit raised reads the stream", ["info", "-", "--stream-limit", "1G"], 0, big_out, stdin=BIG_TXT),
        Case("bad stream limit", ["info", "-", "--stream-limit", "lots"], 2, r"--stream-limit: 'lots'"),
    ]
    # ---- outputs: links, devices, names, full disks, the input itself
    C += [
        Case("output through a symlink", ["pagerank", "g.mtx", "--output", "out.csv"], 0, r"pagerank:",
             setup=lambda d: (files(g__mtx=SMALL_MTX, precious__txt=b"precious\n")(d),
                              os.symlink("precious.txt", os.path.join(d, "out.csv"))),
             changes={"precious.txt": rank_csv}),
        Case("output through a dangling symlink", ["pagerank", "g.mtx", "--output", "out.csv"], 0, r"pagerank:",
             setup=lambda d: (files(g__mtx=SMALL_MTX)(d), os.mkdir(os.path.join(d, "sub")),
                              os.symlink("sub/new.csv", os.path.join(d, "out.csv"))),
             changes={"sub/new.csv": rank_csv}),
        # System devices only through links in the scratch folder: a tool that replaced
        # its target would replace the link, which the folder's hashes then show, and
        # never the machine's /dev/null.
        Case("output /dev/null", ["pagerank", "g.mtx", "--output", "null"], 0, r"pagerank:",
             setup=lambda d: (files(g__mtx=SMALL_MTX)(d), os.symlink("/dev/null", os.path.join(d, "null")))),
        Case("output /dev/stdout", ["pagerank", "g.mtx", "--output", "stdout"], 0, r"vertex,rank",
             setup=lambda d: (files(g__mtx=SMALL_MTX)(d), os.symlink("/dev/stdout", os.path.join(d, "stdout")))),
        Case("output /dev/fd/1 onto a redirected file", ["pagerank", "g.mtx", "--output", "/dev/fd/1"], 0,
             r"vertex,rank\n(.*\n){4}pagerank:", setup=files(g__mtx=SMALL_MTX), driver=drive_stdout_file,
             changes={"stdout.txt": lambda p: True}),
        Case("output a 254-byte name", ["pagerank", "g.mtx", "--output", long_name], 0, r"pagerank:",
             setup=files(g__mtx=SMALL_MTX), changes={long_name: rank_csv}),
        Case("output /dev/full", ["pagerank", "g.mtx", "--output", "full"], 1, r"'full'.*No space left",
             setup=lambda d: (files(g__mtx=SMALL_MTX)(d), os.symlink("/dev/full", os.path.join(d, "full")))),
        Case("convert to /dev/full", ["convert", "g.mtx", "full.mtx"], 1, r"'full\.mtx'.*No space left",
             setup=lambda d: (files(g__mtx=SMALL_MTX)(d), os.symlink("/dev/full", os.path.join(d, "full.mtx")))),
        Case("output folder missing", ["pagerank", "g.mtx", "--output", "nowhere/out.csv"], 1,
             r"folder 'nowhere' does not exist", setup=files(g__mtx=SMALL_MTX)),
        Case("output folder unwritable", ["pagerank", "g.mtx", "--output", "/proc/geblas-out.csv"], 1,
             r"cannot (create a file in|write) '?/proc", setup=files(g__mtx=SMALL_MTX)),
        Case("output is a folder", ["pagerank", "g.mtx", "--output", "sub"], 1, r"it is a folder",
             setup=lambda d: (files(g__mtx=SMALL_MTX)(d), os.mkdir(os.path.join(d, "sub")))),
        Case("output = input", ["convert", "g.mtx", "g.mtx"], 1, r"is the input file", setup=files(g__mtx=SMALL_MTX)),
        Case("output = input through a link", ["convert", "g.mtx", "link.mtx"], 1, r"is the input file",
             setup=lambda d: (files(g__mtx=SMALL_MTX)(d), os.symlink("g.mtx", os.path.join(d, "link.mtx")))),
        Case("closed pipe on output", ["pagerank", "big.txt", "--output", "-"], 1, r"standard output.*Broken pipe",
             setup=files(big__txt=BIG_TXT), driver=drive_closed_pipe),
    ]
    if have_root:
        C.append(Case("output onto a device node", ["pagerank", "g.mtx", "--output", "./null"], 0, r"pagerank:",
                      setup=lambda d: (files(g__mtx=SMALL_MTX)(d),
                                       os.mknod(os.path.join(d, "null"), 0o666 | stat.S_IFCHR, os.makedev(1, 3)))))
        C.append(Case("output onto a full device node", ["convert", "g.mtx", "./full"], 1, r"No space left",
                      setup=lambda d: (files(g__mtx=SMALL_MTX)(d),
                                       os.mknod(os.path.join(d, "full"), 0o666 | stat.S_IFCHR, os.makedev(1, 7)))))
    # ---- signals and kill -9 during a write
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL):
        C.append(Case("%s during convert" % sig.name, ["convert", "big.txt", "out.mtx.gz"], -sig, r"^$",
                      setup=big_mtx_gz, driver=drive_signal(sig), time=30,
                      changes={"later.csv": rank_csv} if sig == signal.SIGKILL else {}))
    # ---- text that is not what it claims
    mm = b"%%MatrixMarket matrix coordinate real general\n"
    C += [
        Case("first field 1.5", ["info", "e.txt"], 1, r"e\.txt:1: source vertex '1\.5' is not an integer",
             setup=files(e__txt=b"1.5 2\n1 2\n2 0\n")),
        Case("first field x1", ["info", "e.txt"], 1, r"e\.txt:1: .*'x1'", setup=files(e__txt=b"x1 2\n1 2\n2 0\n")),
        Case("first field a full-width digit", ["info", "e.txt"], 1, r"e\.txt:1: .*'\uff11'",
             setup=files(e__txt="\uff11 2\n1 2\n2 0\n".encode())),
        Case("SNAP first line 1.5 without a name", ["info", "e.dat"], 1, r"e\.dat:2: .*'1\.5'",
             setup=files(e__dat=b"# SNAP\n1.5 2\n1 2\n")),
        Case("a real header is skipped", ["info", "e.csv"], 0, r"entries: 2\b", setup=files(e__csv=b"src,dst\n0,1\n1,2\n")),
        Case("truncated gzip", ["info", "t.mtx.gz"], 1, r"truncated gzip",
             setup=lambda d: files(t__mtx__gz=gzip.compress(mm + b"3 3 3\n" + b"1 1 1\n" * 3)[:-12])(d)),
        Case("bad banner", ["info", "b.mtx"], 1, r"b\.mtx:1: missing banner", setup=files(b__mtx=b"%MatrixMarket x\n1 1 0\n")),
        Case("unknown banner format", ["info", "b.mtx"], 1, r"unknown format 'tensor'",
             setup=files(b__mtx=b"%%MatrixMarket matrix tensor real general\n1 1 0\n")),
        Case("complex field", ["info", "b.mtx"], 1, r"complex", setup=files(b__mtx=b"%%MatrixMarket matrix coordinate complex general\n1 1 0\n")),
        Case("fewer entries than announced", ["info", "c.mtx"], 1, r"announces 5 entries, the file has 2",
             setup=files(c__mtx=mm + b"3 3 5\n1 1 1\n2 2 1\n")),
        Case("more entries than announced", ["info", "c.mtx"], 1, r"c\.mtx:5: too many entries",
             setup=files(c__mtx=mm + b"3 3 2\n1 1 1\n2 2 1\n3 3 1\n")),
        Case("index out of range", ["info", "c.mtx"], 1, r"c\.mtx:3: row index 9 is out of range \[1, 3\]",
             setup=files(c__mtx=mm + b"3 3 1\n9 1 1\n")),
        Case("huge declared size", ["info", "h.mtx"], 1, r"dimension limit.*--max-dimension",
             setup=files(h__mtx=mm + b"200000000 200000000 1\n1 1 1\n"), mem_mib=512),
        Case("huge size beyond the format", ["info", "h.mtx"], 1, r"exceeds the limit",
             setup=files(h__mtx=mm + b"99999999999 3 1\n1 1 1\n")),
        Case("small limit says bytes, not 0 MiB", ["info", "e.txt", "--max-dimension", "10"], 1,
             r"would take 7\.8 KiB", setup=files(e__txt=b"0 1000\n")),
        Case("non-numeric value", ["info", "c.mtx"], 1, r"c\.mtx:3: value 'abc' is not a number",
             setup=files(c__mtx=mm + b"3 3 1\n1 1 abc\n")),
        Case("CRLF line ends", ["info", "c.mtx"], 0, r"entries: 2\b",
             setup=files(c__mtx=(mm + b"3 3 2\n1 1 1\n2 2 1\n").replace(b"\n", b"\r\n"))),
        Case("CR-only line ends", ["info", "c.mtx"], 1, r"c\.mtx:1: .*CR alone",
             setup=files(c__mtx=(mm + b"3 3 2\n1 1 1\n2 2 1\n").replace(b"\n", b"\r"))),
        Case("byte-order mark", ["info", "c.dat"], 0, r"entries: 2\b",
             setup=files(c__dat=b"\xef\xbb\xbf" + mm + b"3 3 2\n1 1 1\n2 2 1\n")),
        Case("NUL byte in an entry", ["info", "c.mtx"], 1, r"c\.mtx:3: .*\\x00",
             setup=files(c__mtx=mm + b"3 3 1\n1 1 \x001\n")),
        Case("binary bytes in a banner", ["info", "c.mtx"], 1, r"c\.mtx:1: missing banner.*\\x1b",
             setup=files(c__mtx=b"\x1b[2J\x9b\xff\n")),
        Case("duplicate names the tool's option", ["info", "d.mtx"], 1,
             r"^(?!.*ReadOptions).*already given on line 3.*--duplicates",
             setup=files(d__mtx=mm + b"3 3 2\n1 2 1\n1 2 5\n")),
        Case("a folder as input", ["info", "sub"], 1, r"'sub'.*directory", setup=lambda d: os.mkdir(os.path.join(d, "sub"))),
        Case("a missing input", ["info", "none.mtx"], 1, r"cannot open 'none\.mtx'"),
    ]
    # ---- the command line
    C += [
        Case("unknown command", ["frobnicate", "g.mtx"], 2, r"unknown command 'frobnicate' \(commands: info,"),
        Case("repeated option", ["pagerank", "g.mtx", "--top", "3", "--top=4"], 2, r"option --top is given twice"),
        Case("bad option value", ["pagerank", "g.mtx", "--damping", "1.5"], 2, r"--damping"),
    ]
    return C


def check(tool: str, case: Case) -> list:
    """Runs one case in a fresh scratch folder; returns its failures."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="geblas-abuse-") as d:
        if case.setup:
            case.setup(d)
        before = snapshot(d)
        args = [a.replace("{d}", d) for a in case.args]
        if case.driver:
            r = case.driver(tool, Case(**{**case.__dict__, "args": args}), d)
        else:
            stdin = case.stdin
            r = run(tool, args, d, case.mem_mib, case.time, stdin=stdin)
            if hasattr(stdin, "close"):
                stdin.close()
        text = (r.out if case.code == 0 else r.err).decode("utf-8", "replace")
        if r.code != case.code:
            problems.append("exit %d, expected %d" % (r.code, case.code))
        if not re.search(case.pattern, text, re.S):
            problems.append("message does not match %r" % case.pattern)
        if r.seconds > case.time:
            problems.append("took %.1f s, bound %.0f s" % (r.seconds, case.time))
        if case.code == 1:
            try:
                r.err.decode("utf-8")
            except UnicodeDecodeError:
                problems.append("stderr is not UTF-8: raw bytes echoed")
            if re.search(rb"[\x00-\x08\x0b-\x1f\x7f]", r.err):
                problems.append("stderr holds control bytes")
            if r.err.count(b"\n") != 1:
                problems.append("stderr is not one line")
        after = snapshot(d)
        for name in sorted(set(before) | set(after)):
            if name in case.changes:
                p = os.path.join(d, name)
                if name not in after or not case.changes[name](p):
                    problems.append("%s: not as expected after the run" % name)
            elif before.get(name) != after.get(name):
                problems.append("%s: %s -> %s" % (name, before.get(name, "absent"), after.get(name, "absent")))
        if problems:
            problems.append("command: geblas %s\n      stderr: %s" % (" ".join(args), r.err.decode("utf-8", "replace").strip()))
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tool")
    ap.add_argument("-k", default="", help="run only the cases whose name contains this")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--no-address-limit", action="store_true",
                    help="run without RLIMIT_AS (a sanitizer build reserves terabytes of shadow memory)")
    a = ap.parse_args()
    global ADDRESS_LIMIT
    ADDRESS_LIMIT = not a.no_address_limit
    if not ADDRESS_LIMIT:
        print("note: no address-space bound on the cases (--no-address-limit); time bounds still apply")
    tool = os.path.abspath(a.tool)
    chosen = [c for c in cases(os.geteuid() == 0) if a.k in c.name]
    if a.list:
        print("\n".join(c.name for c in chosen))
        return 0
    failed = 0
    start = time.monotonic()
    for c in chosen:
        problems = check(tool, c)
        print("%-48s %s" % (c.name, "ok" if not problems else "FAILED"))
        for p in problems:
            print("    " + p)
        failed += bool(problems)
    print("%d of %d cases failed (%.1f s)" % (failed, len(chosen), time.monotonic() - start))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
