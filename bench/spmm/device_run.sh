#!/usr/bin/env bash
# One device call for the CUDA SpMM: configure, build the GPU test and the bench, run
# the tests, optionally the sanitizers, then the bench. Logs go to $OUT.
#   bench/spmm/device_run.sh BUILD_DIR DATA_DIR "TEST_ARGS" "SANITIZE_ARGS|-" "BENCH_ARGS|-"
set -uo pipefail
build=$1 data=$2 test_args=$3 san_args=$4 bench_args=$5
out=${OUT:-/tmp}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DGEBLAS_DATA_DIR="$data" -DGEBLAS_BUILD_EXAMPLES=OFF -DGEBLAS_BUILD_TOOLS=OFF >"$out/configure.log" 2>&1 \
  || { tail -30 "$out/configure.log"; exit 1; }
start=$(date +%s)
cmake --build "$build" --target test_spmm_gpu bench_spmm -j16 >"$out/build.log" 2>&1 \
  || { grep -B2 -A10 -E "error" "$out/build.log" | head -60; exit 1; }
echo "build: $(( $(date +%s) - start )) s"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
if [ "$test_args" != "-" ]; then
  timeout 240 "$build/tests/cuda/test_spmm_gpu" $test_args >"$out/test.log" 2>&1; echo "tests rc=$?"
  tail -5 "$out/test.log"; grep -m5 -B5 -A15 "FAILED" "$out/test.log" | head -80
fi
if [ "$san_args" != "-" ]; then
  timeout 200 compute-sanitizer --tool memcheck --leak-check full "$build/tests/cuda/test_spmm_gpu" $san_args >"$out/memcheck.log" 2>&1; echo "memcheck rc=$?"
  tail -4 "$out/memcheck.log"
  timeout 150 compute-sanitizer --tool racecheck "$build/tests/cuda/test_spmm_gpu" $san_args >"$out/racecheck.log" 2>&1; echo "racecheck rc=$?"
  tail -4 "$out/racecheck.log"
fi
if [ "$bench_args" != "-" ]; then
  timeout 420 "$build/bench/spmm/bench_spmm" $bench_args --csv="$out/bench.csv" >"$out/bench.log" 2>&1; echo "bench rc=$?"
  grep -E "WRONG|WARNING" "$out/bench.log" | head -20
  sed -n '/^## summary/,$p' "$out/bench.log"
fi
