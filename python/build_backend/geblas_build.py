"""The PEP 517 build backend of the geblas Python package (pyproject.toml names it).

`pip install .` calls build_wheel, which drives the project's own CMake build: configure
(Ninja and ccache when they are installed), build the `geblas_python` target, install the
CMake component `python_wheel` (python/CMakeLists.txt: the package folder with the
extension, the pure-Python modules and libgeblas with the project's libraries it links)
into a scratch folder, and zip that folder into a wheel. It needs only the Python standard library, cmake and a C++ compiler,
so it works offline and with `--no-build-isolation`; Debian 12 ships no CMake build
backend for Python (scikit-build is not packaged there).

Settings, as `pip install . --config-settings KEY=VALUE` (`-C` from pip 23.1) or from the
environment:

  build-dir  GEBLAS_PIP_BUILD_DIR  the CMake build folder. Default: build-pip in the source
             tree, configured for this interpreter with only the library and the Python
             package. A folder that already holds a CMakeCache.txt is used as it was
             configured (CI's main build, say), provided it has GEBLAS_PYTHON=ON.
  cuda       GEBLAS_PIP_CUDA       GEBLAS_CUDA when the backend configures (not for a
             build-dir used as configured): AUTO (the default: the CUDA backend when nvcc
             is found), ON or OFF.

CMAKE_BUILD_PARALLEL_LEVEL limits the build's jobs as for any `cmake --build`.
"""

import base64
import hashlib
import importlib.machinery
import io
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    tomllib = None

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
SETTINGS = {"build-dir": "GEBLAS_PIP_BUILD_DIR", "cuda": "GEBLAS_PIP_CUDA"}
# Folders of the source tree an sdist leaves out when there is no git to list the files.
SDIST_SKIP = re.compile(r"^(build[^/]*|\.git|\.wt|\.deps|out)(/|$)|(^|/)__pycache__(/|$)")


class BuildError(Exception):
    pass


def _fail(message):
    raise BuildError(f"geblas build backend: {message}")


def _setting(config_settings, key):
    config_settings = config_settings or {}
    unknown = sorted(set(config_settings) - set(SETTINGS))
    if unknown:
        _fail(f"unknown config setting(s) {', '.join(unknown)}; known: {', '.join(SETTINGS)}")
    value = config_settings.get(key)
    if isinstance(value, list):  # pip passes a repeated -C key=... as a list
        value = value[-1]
    return value if value not in (None, "") else os.environ.get(SETTINGS[key]) or None


def _version():
    """The project's version, as CMakeLists.txt's project() declares it."""
    text = (SOURCE_DIR / "CMakeLists.txt").read_text()
    m = re.search(r"project\(\s*geblas\s+VERSION\s+([0-9][0-9.]*)", text)
    if not m:
        _fail(f"no 'project(geblas VERSION x.y.z' in {SOURCE_DIR / 'CMakeLists.txt'}")
    return m.group(1)


def _project_table():
    path = SOURCE_DIR / "pyproject.toml"
    if tomllib is None:
        _fail("reading pyproject.toml needs Python 3.11 or newer (tomllib)")
    with open(path, "rb") as f:
        project = tomllib.load(f).get("project")
    if not project or project.get("name") != "geblas":
        _fail(f"{path} has no [project] table named geblas")
    return project


def _metadata():
    """Core metadata 2.1 (METADATA / PKG-INFO) from pyproject.toml's [project]."""
    project = _project_table()
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {_version()}"]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    license_ = project.get("license", {})
    if "text" in license_:
        lines.append(f"License: {license_['text']}")
    for url_name, url in project.get("urls", {}).items():
        lines.append(f"Project-URL: {url_name}, {url}")
    for classifier in project.get("classifiers", []):
        lines.append(f"Classifier: {classifier}")
    for dep in project.get("dependencies", []):
        lines.append(f"Requires-Dist: {dep}")
    return "\n".join(lines) + "\n"


def _dist_info_name():
    return f"geblas-{_version()}.dist-info"


def _wheel_tag():
    """cpXY-cpXY-<platform>: the extension is built for this interpreter and machine."""
    if sys.implementation.name != "cpython":
        _fail(f"wheels are built for CPython only, not {sys.implementation.name}")
    py = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{py}-{py}{sys.abiflags}-{platform}"


def _run(cmd, **kwargs):
    print("geblas build backend: " + " ".join(str(c) for c in cmd), file=sys.stderr, flush=True)
    try:
        # Output to stderr: a PEP 517 hook's stdout may be parsed by the frontend.
        subprocess.run([str(c) for c in cmd], check=True, stdout=sys.stderr, **kwargs)
    except FileNotFoundError:
        _fail(f"{cmd[0]} not found on PATH (Debian: apt-get install cmake ninja-build)")
    except subprocess.CalledProcessError as e:
        _fail(f"'{' '.join(str(c) for c in cmd)}' failed with exit status {e.returncode} (output above)")


def _cache_value(cache_file, name):
    m = re.search(rf"^{re.escape(name)}:[A-Z]+=(.*)$", cache_file.read_text(), re.MULTILINE)
    return m.group(1) if m else None


def _configure(build_dir, explicit, cuda):
    cache = build_dir / "CMakeCache.txt"
    if explicit and cache.exists():
        # Someone else's build: used as configured, never reconfigured with other options.
        if _cache_value(cache, "GEBLAS_PYTHON") not in ("ON", "TRUE", "1", "YES"):
            _fail(f"{build_dir} was configured without -DGEBLAS_PYTHON=ON: it has no Python package to install")
        if cuda:
            _fail(f"cuda={cuda} applies to a fresh configure, but {build_dir} is already configured "
                  f"(GEBLAS_CUDA={_cache_value(cache, 'GEBLAS_CUDA')})")
        return
    cmd = ["cmake", "-S", SOURCE_DIR, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
           "-DGEBLAS_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}",
           "-DGEBLAS_BUILD_TESTS=OFF", "-DGEBLAS_BUILD_BENCH=OFF", "-DGEBLAS_BUILD_EXAMPLES=OFF",
           "-DGEBLAS_BUILD_TOOLS=OFF"]
    if cuda:
        if cuda.upper() not in ("AUTO", "ON", "OFF"):
            _fail(f"cuda={cuda}: expected AUTO, ON or OFF")
        cmd.append(f"-DGEBLAS_CUDA={cuda.upper()}")
    if not cache.exists() and shutil.which("ninja"):
        cmd += ["-G", "Ninja"]
    if shutil.which("ccache"):
        cmd += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"]
    _run(cmd)


def _build_package(config_settings, staging):
    """Builds the package and installs it into staging/geblas."""
    given = _setting(config_settings, "build-dir")
    build_dir = pathlib.Path(given).resolve() if given else SOURCE_DIR / "build-pip"
    _configure(build_dir, given is not None, _setting(config_settings, "cuda"))
    _run(["cmake", "--build", build_dir, "--target", "geblas_python"])
    _run(["cmake", "--install", build_dir, "--component", "python_wheel", "--prefix", staging])
    package = staging / "geblas"
    modules = sorted(package.glob("_geblas*"))
    if len(modules) != 1:
        _fail(f"expected one _geblas extension in {package}, found {[m.name for m in modules]}")
    suffix = modules[0].name[len("_geblas"):]
    if suffix not in importlib.machinery.EXTENSION_SUFFIXES:
        _fail(f"{build_dir} built {modules[0].name} for another Python than {sys.executable} "
              f"(which loads {', '.join(importlib.machinery.EXTENSION_SUFFIXES)}): configure it with "
              f"-DPython3_EXECUTABLE={sys.executable}, or leave build-dir unset")
    if not list(package.glob("libgeblas.so*")):
        _fail(f"no libgeblas in {package}: the python_wheel component is incomplete")


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def _wheel_files(staging):
    """(name in the wheel, bytes). A zip holds no symbolic links: a link (the library's
    soname) carries the bytes of the file it points to, which is then left out."""
    paths = sorted(p for p in staging.rglob("*") if p.is_file() or p.is_symlink())
    link_targets = {p.resolve() for p in paths if p.is_symlink()}
    for p in paths:
        if not p.is_symlink() and p.resolve() in link_targets:
            continue
        yield p.relative_to(staging).as_posix(), p.resolve().read_bytes()


def _write_wheel(wheel_directory, staging):
    dist_info = _dist_info_name()
    name = f"geblas-{_version()}-{_wheel_tag()}.whl"
    wheel_meta = ("Wheel-Version: 1.0\nGenerator: geblas_build\nRoot-Is-Purelib: false\n"
                  f"Tag: {_wheel_tag()}\n")
    entries = list(_wheel_files(staging))
    entries.append((f"{dist_info}/METADATA", _metadata().encode()))
    entries.append((f"{dist_info}/WHEEL", wheel_meta.encode()))
    license_file = SOURCE_DIR / "LICENSE"
    if license_file.exists():
        entries.append((f"{dist_info}/LICENSE", license_file.read_bytes()))
    record = [_record_line(arc, data) for arc, data in entries] + [f"{dist_info}/RECORD,,"]
    entries.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode()))
    path = pathlib.Path(wheel_directory) / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as whl:
        for arc, data in entries:
            info = zipfile.ZipInfo(arc, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if arc.endswith(".so") or ".so." in arc else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            whl.writestr(info, data)
    return name


# --- the PEP 517 hooks -----------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []  # cmake and the compiler come from the system, not from PyPI


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    _setting(config_settings, "build-dir")  # reject unknown settings before the build
    dist_info = pathlib.Path(metadata_directory) / _dist_info_name()
    dist_info.mkdir(parents=True, exist_ok=True)
    (dist_info / "METADATA").write_text(_metadata())
    return dist_info.name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with tempfile.TemporaryDirectory(prefix="geblas-wheel-") as tmp:
        staging = pathlib.Path(tmp)
        _build_package(config_settings, staging)
        return _write_wheel(wheel_directory, staging)


def _sdist_files():
    if (SOURCE_DIR / ".git").exists() and shutil.which("git"):
        out = subprocess.run(["git", "-C", SOURCE_DIR, "ls-files", "-z"], check=True,
                             capture_output=True).stdout.decode()
        names = [n for n in out.split("\0") if n]
    else:  # an unpacked sdist: everything but build folders
        names = [p.relative_to(SOURCE_DIR).as_posix() for p in SOURCE_DIR.rglob("*") if p.is_file()]
        names = [n for n in names if not SDIST_SKIP.search(n) and n != "PKG-INFO"]
    return sorted(n for n in names if (SOURCE_DIR / n).is_file())


def build_sdist(sdist_directory, config_settings=None):
    _setting(config_settings, "build-dir")
    base = f"geblas-{_version()}"
    path = pathlib.Path(sdist_directory) / f"{base}.tar.gz"
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name in _sdist_files():
            tar.add(SOURCE_DIR / name, arcname=f"{base}/{name}", recursive=False)
        pkg_info = _metadata().encode()
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(pkg_info)
        info.mode = 0o644
        tar.addfile(info, io.BytesIO(pkg_info))
    return path.name
