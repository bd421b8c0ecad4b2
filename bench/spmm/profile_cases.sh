#!/usr/bin/env bash
# Nsight Compute over chosen SpMM cases: each case runs bench_spmm --profile=1 on one graph
# and one N, so that ncu (--profile-from-start off) sees one warm call of every cuSPARSE
# algorithm and of each geblas variant named, in the order of the CSV rows. Metrics: time,
# DRAM bytes, L1 and L2 hit rates, SM activity (max / mean: load balance across SMs),
# achieved occupancy and launch shape. Clocks are not locked (--clock-control none), as
# in the bench. NCU_EXTRA_METRICS (comma-separated) adds metrics, e.g. the stall reasons.
#   OUT=dir bench/spmm/profile_cases.sh BENCH "graph:N[:variants]" ...
# graph is a shared graph name or rmat:SCALE:EF / uniform:ROWS:NNZ; variants a
# '+'-separated list of geblas variants (default: the dispatcher's pick only).
set -uo pipefail
bench=$1; shift
out=${OUT:?set OUT}
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,\
l1tex__t_sector_hit_rate.pct,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.max,\
sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,\
launch__registers_per_thread,launch__shared_mem_per_block_static,lts__t_sectors_srcunit_tex_op_read.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed.sum${NCU_EXTRA_METRICS:+,$NCU_EXTRA_METRICS}
for spec in "$@"; do
  IFS=: read -r a b c d <<<"$spec"
  if [ "$a" = rmat ] || [ "$a" = uniform ]; then g="--graphs=none --synthetic=$a:$b:$c"; n=$d; v=""
  else g="--graphs=$a --synthetic="; n=$b; v=${c:-}; fi
  only=""; [ -n "$v" ] && only="--variants=1 --only=${v//+/,}"; [ -z "$v" ] && only="--variants=0"
  tag=$(echo "$spec" | tr ':+' '__')
  timeout 240 ncu --clock-control none --profile-from-start off --metrics "$metrics" --csv \
    --log-file "$out/ncu-$tag.csv" "$bench" $g --n=$n --reps=20 --semirings=0 --single=0 --overhead=0 --profile=1 $only \
    > "$out/ncu-$tag.out" 2>&1
  echo "ncu $spec rc=$? ($(grep -c '"gpu__time_duration.sum"' "$out/ncu-$tag.csv") kernels)"
done
