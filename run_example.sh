#!/usr/bin/env bash
# The README's first command: installs the Debian packages the library and the tool need
# (group "main" of tools/packages/debian.txt), builds the geblas tool alone (CUDA included
# when nvcc is in /usr/local/cuda/bin) in build-example/, and runs PageRank and 8-source
# shortest paths on the bundled co-authorship graph, on the GPU if there is one, else on
# the CPU. Works from any folder; extra arguments go to both runs (e.g. --device cpu).
# BUILD_DIR moves the build folder.
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
cd "$root"
tools/packages/ensure main
if [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
# Its own build folder with only what the tool needs, so it never reconfigures the test
# build (build/) and needs none of the test dependencies.
build=${BUILD_DIR:-build-example}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGEBLAS_BUILD_TOOLS=ON \
  -DGEBLAS_BUILD_TESTS=OFF -DGEBLAS_BUILD_BENCH=OFF -DGEBLAS_BUILD_EXAMPLES=OFF -DGEBLAS_PYTHON=OFF >/dev/null
cmake --build "$build" --target geblas_tool -j"$(nproc)"
tool="$build/tools/geblas/geblas"
graph=data/astro-ph-weighted.mtx.gz
echo
"$tool" info "$graph"
echo
"$tool" pagerank "$graph" --top 5 "$@"
echo
"$tool" sssp "$graph" --sources 0,2000,4000,6000,8000,10000,12000,14000 --top 8 "$@"
