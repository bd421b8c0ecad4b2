#!/usr/bin/env bash
# `pip install .` as a Python user runs it, offline: a virtual environment that sees the
# system's NumPy, SciPy and pytest (Debian: python3-venv python3-pip python3-numpy
# python3-scipy python3-pytest), `pip install --no-build-isolation --no-index .` from
# the checkout, then, from a folder outside it and with no PYTHONPATH, `import geblas`
# (its library must be the one pip installed) and a few of python/tests against the
# installed package.
#
# usage: tests/python/pip_install_check.sh [BUILD_DIR]
#   BUILD_DIR  an existing build configured with -DGEBLAS_PYTHON=ON for the same Python
#              (CI's main build): the wheel is made from it, and only the Python target
#              is brought up to date. Default: build-pip in the checkout, configured by
#              the build backend (library and Python package only).
# Environment: PYTHON (default /usr/bin/python3), GEBLAS_DATA_DIR (real graphs for the
# pytest cases that read them; they skip without it).
# Exit status: 0 passed, 1 failed, 77 the prerequisites (venv, pip) are missing.
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
python=${PYTHON:-/usr/bin/python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/geblas-pip-check.XXXXXX")
trap 'rm -rf "$work"' EXIT

if ! "$python" -c "import ensurepip, venv" 2>/dev/null; then
  echo "pip_install_check: $python has no venv/ensurepip (Debian: apt-get install python3-venv python3-pip)"
  exit 77
fi
"$python" -m venv --system-site-packages "$work/venv"
venv_python=$work/venv/bin/python
"$venv_python" -m pip --version

# The backend refuses what it cannot honour, naming it, before any build.
refused() {  # refused EXPECTED-MESSAGE CONFIG-SETTINGS-AS-PYTHON-DICT
  local out
  if out=$(cd "$src" && "$venv_python" -c "import sys; sys.path.insert(0, 'python/build_backend')
import geblas_build
geblas_build.build_wheel(sys.argv[1], $2)" "$work" 2>&1); then
    echo "pip_install_check: the backend accepted $2"; exit 1
  fi
  grep -qF -- "$1" <<<"$out" || { echo "pip_install_check: for $2 expected '$1', got:"; echo "$out"; exit 1; }
}
mkdir "$work/not-python"
echo "GEBLAS_PYTHON:BOOL=OFF" > "$work/not-python/CMakeCache.txt"
refused "unknown config setting(s) bogus" "{'bogus': '1'}"
refused "was configured without -DGEBLAS_PYTHON=ON" "{'build-dir': '$work/not-python'}"
refused "cuda=maybe: expected AUTO, ON or OFF" "{'cuda': 'maybe', 'build-dir': '$work/fresh'}"

pip_args=(--no-build-isolation --no-index --no-cache-dir --disable-pip-version-check)
if [ $# -ge 1 ]; then
  pip_args+=(--config-settings "build-dir=$(cd "$1" && pwd)")
fi
start=$(date +%s%N)
(cd "$src" && unset PYTHONPATH && "$venv_python" -m pip install "${pip_args[@]}" .)
echo "pip_install_check: pip install took $(( ($(date +%s%N) - start) / 1000000 )) ms"

# The wheel itself: the package with its libraries and no more, every RECORD line true.
(cd "$src" && "$venv_python" -m pip wheel -q --no-deps "${pip_args[@]}" -w "$work/wheel" .)
"$venv_python" - "$work"/wheel/geblas-*.whl "$src" <<'EOF'
import base64, csv, hashlib, io, pathlib, re, sys, zipfile
whl = zipfile.ZipFile(sys.argv[1])
names = sorted(whl.namelist())
dist = next(n.split("/")[0] for n in names if n.endswith(".dist-info/RECORD"))
package = [n for n in names if not n.startswith(dist)]
# the package's Python files are those of the source tree's python/geblas
tree = pathlib.Path(sys.argv[2]) / "python" / "geblas"
sources = sorted("geblas/" + p.relative_to(tree).as_posix() for p in tree.rglob("*.py"))
modules = [n for n in package if n in sources or re.fullmatch(r"geblas/_geblas\.[^/]*\.so", n)]
libraries = [n for n in package if re.fullmatch(r"geblas/libgeblas\w*\.so\.\d+\.\d+", n)]
assert len(modules) == len(sources) + 1 and len(modules) + len(libraries) == len(package) \
    and re.sub(r"\.so\..*", "", min(libraries)) == "geblas/libgeblas", package
rows = list(csv.reader(io.TextIOWrapper(whl.open(f"{dist}/RECORD"))))
assert sorted(r[0] for r in rows) == names, "RECORD does not list exactly the wheel's files"
for name, digest, size in rows:
    if name == f"{dist}/RECORD":
        continue
    data = whl.read(name)
    want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    assert digest == want and int(size) == len(data), f"RECORD is wrong for {name}"
print(f"pip_install_check: {sys.argv[1].rsplit('/', 1)[-1]}: {', '.join(package)}; RECORD checked")
EOF

# From outside the checkout, nothing on PYTHONPATH: the installed package only.
mkdir "$work/outside"
cd "$work/outside"
unset PYTHONPATH
"$venv_python" - "$work/venv" <<'EOF'
import pathlib, sys
import numpy as np
import geblas

venv = pathlib.Path(sys.argv[1]).resolve()
package = pathlib.Path(geblas.__file__).resolve().parent
assert venv in package.parents, f"geblas imported from {package}, not from the venv {venv}"
loaded = {pathlib.Path(line.split()[-1]).resolve() for line in open("/proc/self/maps")
          if "libgeblas.so" in line}
assert loaded and all(p.parent == package for p in loaded), \
    f"libgeblas loaded from {loaded}, expected the copy in {package}"

# A 3-vertex path 0 -> 1 -> 2 (weights 2, 3): one min-plus product, checked by hand.
A = geblas.Matrix.from_scipy(__import__("scipy.sparse", fromlist=["csr_matrix"]).csr_matrix(
    (np.array([2.0, 3.0]), (np.array([0, 1]), np.array([1, 2]))), shape=(3, 3)))
X = np.array([[0.0], [np.inf], [10.0]])
Y = geblas.mxm(A, X, semiring="min_plus")
assert Y.shape == (3, 1) and Y[0, 0] == np.inf and Y[1, 0] == 13.0 and Y[2, 0] == np.inf, Y
print(f"pip_install_check: geblas {geblas.__version__} from {package}, libgeblas {sorted(loaded)[0].name}: ok")
EOF

# A few of the package's own tests, copied out so nothing resolves to the checkout.
mkdir tests
cp "$src"/python/tests/conftest.py "$src"/python/tests/test_operations.py \
   "$src"/python/tests/test_errors.py tests/
"$venv_python" -m pytest -q -p no:cacheprovider tests

# pip removes what it installed (the wheel's RECORD names every file).
site=$("$venv_python" -c "import sysconfig; print(sysconfig.get_paths()['platlib'])")
"$venv_python" -m pip uninstall -y -q geblas
if [ -e "$site/geblas" ] || compgen -G "$site/geblas-*.dist-info" >/dev/null; then
  echo "pip_install_check: pip uninstall left $(ls -d "$site"/geblas*)"; exit 1
fi
echo "pip_install_check: passed"
