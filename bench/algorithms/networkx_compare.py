#!/usr/bin/env python3
"""NetworkX BFS and SSSP beside `bench_algorithms --device cpu` on the same graphs, roots
and weights (issue 11 item 9: geblas on the CPU at least 5x faster than NetworkX on
luxembourg_osm, and faster on every shared graph).

For each graph this runs bench_algorithms (--algorithms bfs,sssp, its --csv output gives
the root and the median warm time of --repeat calls), then times in this process
  BFS:  networkx.single_source_shortest_path_length(G, root)
  SSSP: networkx.single_source_dijkstra_path_length(G, root, weight="w")
with the bench's weights w(i, j) = 1 + splitmix64(min(i,j) << 32 | max(i,j)) mod 100
(host_checks.cpp), each the median of --runs calls, and checks that both reach as many
vertices as the bench says. The graph is read from the .mtx.gz here (symmetric files
mirrored, as geblas's reader does). Medians because the machine may be shared and noisy.

  networkx_compare.py [--bench build/bench/algorithms/bench_algorithms]
                      [--graphs luxembourg_osm,email-Enron,...] [--runs 5] [--repeat 5]
"""
import argparse
import csv
import gzip
import os
import statistics
import subprocess
import sys
import tempfile
import time

import networkx as nx

MASK = (1 << 64) - 1


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def edge_weight(i, j):
    lo, hi = min(i, j), max(i, j)
    return float(1 + splitmix64((lo << 32) | hi) % 100)


def read_graph(path):
    """Matrix Market coordinate file -> networkx DiGraph (row = source), 0-based ids."""
    with gzip.open(path, "rt") as f:
        header = f.readline().lower().split()
        symmetric = len(header) > 4 and header[4] in ("symmetric", "skew-symmetric", "hermitian")
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        n, _, _ = (int(x) for x in line.split())
        G = nx.DiGraph()
        G.add_nodes_from(range(n))
        for line in f:
            p = line.split()
            if not p or p[0].startswith("%"):
                continue
            i, j = int(p[0]) - 1, int(p[1]) - 1
            w = edge_weight(i, j)
            G.add_edge(i, j, w=w)
            if symmetric and i != j:
                G.add_edge(j, i, w=w)
    return G


def median_s(runs, f):
    times, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def bench_rows(bench, graph, repeat):
    with tempfile.NamedTemporaryFile(suffix=".csv", delete=False) as tmp:
        path = tmp.name
    try:
        cmd = [bench, "--device", "cpu", "--algorithms", "bfs,sssp", "--graphs", graph, "--skip-generated",
               "--repeat", str(repeat), "--budget-s", "100000", "--csv", path]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.stdout.write(r.stdout[-3000:] + r.stderr[-3000:])
            raise SystemExit(f"{' '.join(cmd)} failed with status {r.returncode}")
        rows = {}
        with open(path) as f:
            for row in csv.DictReader(f):
                rows.setdefault(row["algorithm"], {})[row["column"]] = row["value"]
        return rows
    finally:
        os.unlink(path)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=os.path.join(here, "../../build/bench/algorithms/bench_algorithms"))
    ap.add_argument("--graphs", default="luxembourg_osm,email-Enron,cit-HepPh,wing")
    ap.add_argument("--data-dir", default=os.environ.get("GEBLAS_DATA_DIR", os.path.join(here, "../../../shared/data")))
    ap.add_argument("--runs", type=int, default=5, help="NetworkX calls per measurement (median)")
    ap.add_argument("--repeat", type=int, default=5, help="bench_algorithms --repeat (median of its warm calls)")
    a = ap.parse_args()
    env_dir = os.path.abspath(a.data_dir)
    os.environ["GEBLAS_DATA_DIR"] = env_dir
    print(f"# NetworkX {nx.__version__}, Python {sys.version.split()[0]}; medians of {a.runs} NetworkX calls and of "
          f"{a.repeat} geblas calls (bench_algorithms --device cpu, warm); the machine may be shared: noisy")
    print("| graph | vertices | entries | root | reached | NetworkX BFS ms | geblas BFS ms | BFS speed-up | "
          "NetworkX SSSP ms | geblas SSSP ms | SSSP speed-up |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    failed = False
    for g in a.graphs.split(","):
        rows = bench_rows(a.bench, g, a.repeat)
        bfs, sssp = rows.get("bfs", {}), rows.get("sssp", {})
        if "error" in bfs or "error" in sssp or "source" not in bfs:
            print(f"| {g} | bench error: {bfs.get('error', '')} {sssp.get('error', '')} |")
            failed = True
            continue
        root = int(bfs["source"])
        G = read_graph(os.path.join(env_dir, g + ".mtx.gz"))
        t_bfs, lv = median_s(a.runs, lambda: nx.single_source_shortest_path_length(G, root))
        t_sp, dist = median_s(a.runs, lambda: nx.single_source_dijkstra_path_length(G, root, weight="w"))
        reached = int(float(bfs["reached"]))
        if len(lv) != reached or len(dist) != int(sssp["reached"]):
            print(f"# MISMATCH on {g}: NetworkX reaches {len(lv)} (BFS) / {len(dist)} (SSSP) vertices, "
                  f"the bench {reached} / {sssp['reached']}")
            failed = True
        gb, gs = float(bfs["ms (warm)"]), float(sssp["ms (warm)"])
        print(f"| {g} | {G.number_of_nodes()} | {G.number_of_edges()} | {root} | {reached} | {t_bfs * 1e3:.1f} | {gb:.2f} | "
              f"{t_bfs * 1e3 / gb:.2f}x | {t_sp * 1e3:.1f} | {gs:.2f} | {t_sp * 1e3 / gs:.2f}x |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
