#!/usr/bin/env bash
# The README's first command: builds the geblas tool (CUDA included when nvcc is
# found) and runs PageRank and 8-source shortest paths on the bundled co-authorship
# graph, on the GPU if there is one, else on the CPU.
set -euo pipefail
cd "$(dirname "$0")"
if [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target geblas_tool -j"$(nproc)"
graph=data/astro-ph-weighted.mtx.gz
echo
"$build/tools/geblas/geblas" info "$graph"
echo
"$build/tools/geblas/geblas" pagerank "$graph" --top 5 "$@"
echo
"$build/tools/geblas/geblas" sssp "$graph" --sources 0,2000,4000,6000,8000,10000,12000,14000 --top 8 "$@"
