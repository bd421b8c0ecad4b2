# NetworkX reference timings for docs/notes/algorithms-cpu.md: single-source BFS
# (levels) and Dijkstra on a shared graph, best of `repeat` runs, graph loading excluded.
# Weights are |value| (1 for pattern files), as the geblas tool uses them.
# usage: python3 traversal_networkx.py FILE.mtx.gz [source] [repeat]
import gzip
import sys
import time

import networkx as nx

path = sys.argv[1]
source = int(sys.argv[2]) if len(sys.argv) > 2 else 0
repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 3
G = nx.DiGraph()
with gzip.open(path, "rt") as f:
    header = f.readline().lower().split()
    pattern, symmetric = header[3] == "pattern", header[4] != "general"
    line = f.readline()
    while line.startswith("%"):
        line = f.readline()
    n, _, nnz = (int(x) for x in line.split())
    G.add_nodes_from(range(n))
    for line in f:
        parts = line.split()
        i, j = int(parts[0]) - 1, int(parts[1]) - 1
        w = 1.0 if pattern else abs(float(parts[2]))
        G.add_edge(i, j, weight=w)
        if symmetric:
            G.add_edge(j, i, weight=w)


def best(fn):
    t = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - start)
    return t


bfs = best(lambda: nx.single_source_shortest_path_length(G, source))
sssp = best(lambda: nx.single_source_dijkstra_path_length(G, source, weight="weight"))
print(f"{path.split('/')[-1]} n={n} edges={G.number_of_edges()} bfs {bfs * 1e3:.1f} ms  dijkstra {sssp * 1e3:.1f} ms")
