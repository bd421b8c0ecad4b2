#!/usr/bin/env bash
# The README's second command: installs the Debian packages the tests need (groups "main"
# and "tests" of tools/packages/debian.txt), builds everything in build/ (CUDA included
# when nvcc is in /usr/local/cuda/bin; the Python package for /usr/bin/python3, the
# interpreter the Debian packages serve) and runs every test with ctest, which ends with
# its summary ("100% tests passed, ..."). gpu-label tests report "skipped" without a GPU.
# Works from any folder; extra arguments go to ctest (e.g. -L cpu, or -R test_io).
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
cd "$root"
tools/packages/ensure main tests
if [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGEBLAS_PYTHON=ON -DPython3_EXECUTABLE=/usr/bin/python3
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs" "$@"
