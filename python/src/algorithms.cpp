// The graph algorithms and GNN aggregations for Python. The algorithms take typed
// matrices (geblas/algorithms.hpp): with_types picks the instance for the matrix's type
// among those an algorithm computes on.
#include <optional>
#include <tuple>
#include <vector>

#include "common.hpp"
#include "geblas/algorithms.hpp"

namespace geblas::python {
namespace {

// Calls f(typed matrix) when A holds one of Ts, else a TypeError naming what it takes.
template <class... Ts, class F>
auto with_types(PyMatrix& A, const char* what, F&& f) {
  using R = decltype(f(std::declval<const SparseMatrix<std::tuple_element_t<0, std::tuple<Ts...>>>&>()));
  std::optional<R> result;
  auto attempt = [&]<class T>() {
    if (result) return;
    if (auto* m = std::get_if<SparseMatrix<T>>(&A.typed_matrix())) result.emplace(f(*m));
  };
  (attempt.template operator()<Ts>(), ...);
  if (!result) {
    std::string names;
    ((names += std::string(names.empty() ? "" : ", ") + std::string(type_traits<Ts>::name)), ...);
    throw DomainMismatch(std::string(what) + ": A is " + type_name(A.s().type) + "; it computes on " + names +
                         " (convert with A.astype(...))");
  }
  return std::move(*result);
}

#define GEBLAS_PY_GRAPH_TYPES bool, std::int32_t, std::int64_t, float, double

py::object alg_pagerank(PyMatrix& A, double damping, double tolerance, int max_iterations, bool weighted,
                        py::object seeds, bool info) {
  algo::PageRankOptions o;
  o.damping = damping;
  o.tolerance = tolerance;
  o.max_iterations = max_iterations;
  o.weighted = weighted;
  py::object ranks;
  py::dict d;
  if (seeds.is_none()) {
    with_types<float, double>(A, "pagerank", [&](const auto& M) {
      auto r = [&] {
        py::gil_scoped_release nogil;
        return algo::pagerank(M, o);
      }();
      d["iterations"] = r.iterations;
      d["converged"] = r.converged;
      d["delta"] = r.delta;
      ranks = py::cast(Exported::from_vector(std::move(r.ranks.storage())));
      return 0;
    });
  } else {
    const auto sets =
        arg_as<std::vector<std::vector<Index>>>(seeds, "pagerank: seeds", "None or a list of lists of ints");
    with_types<float, double>(A, "personalized_pagerank", [&](const auto& M) {
      auto r = [&] {
        py::gil_scoped_release nogil;
        return algo::personalized_pagerank(M, sets, o);
      }();
      d["iterations"] = r.iterations;
      d["converged"] = r.converged;
      d["delta"] = r.delta;
      ranks = py::cast(Exported::from_dense(std::move(r.ranks.storage())));
      return 0;
    });
  }
  return info ? py::object(py::make_tuple(ranks, d)) : ranks;
}

py::object dense_levels(Vector<algo::VertexId>& v) {
  const algo::VertexId fill = -1;
  return py::cast(Exported::from_vector(lib::to_dense_storage(v.storage(), &fill)));
}

py::object alg_bfs(PyMatrix& A, py::object source, bool parents, const std::string& direction) {
  algo::BfsOptions o;
  if (direction == "automatic") o.direction = algo::BfsDirection::automatic;
  else if (direction == "push") o.direction = algo::BfsDirection::push;
  else if (direction == "pull") o.direction = algo::BfsDirection::pull;
  else throw InvalidValue("bfs: direction must be 'automatic', 'push' or 'pull', got '" + direction + "'");
  if (py::isinstance<py::int_>(source) || !py::hasattr(source, "__len__")) {
    const Index s = arg_as<Index>(source, "bfs: source", "an int or a list of ints");
    return with_types<GEBLAS_PY_GRAPH_TYPES>(A, "bfs", [&](const auto& M) -> py::object {
      algo::BfsResult r = [&] {
        py::gil_scoped_release nogil;
        return algo::bfs(M, s, o);
      }();
      py::object levels = dense_levels(r.levels);
      if (!parents) return levels;
      return py::make_tuple(levels, dense_levels(r.parents));
    });
  }
  const auto sources = arg_as<std::vector<Index>>(source, "bfs: source", "an int or a list of ints");
  return with_types<GEBLAS_PY_GRAPH_TYPES>(A, "bfs", [&](const auto& M) -> py::object {
    algo::MultiBfsResult r = [&] {
      py::gil_scoped_release nogil;
      return algo::bfs(M, sources, o);
    }();
    py::object levels = py::cast(Exported::from_dense(std::move(r.levels.storage())));
    if (!parents) return levels;
    return py::make_tuple(levels, py::cast(Exported::from_dense(std::move(r.parents.storage()))));
  });
}

py::object alg_sssp(PyMatrix& A, py::object source, bool allow_negative) {
  algo::SsspOptions o;
  o.allow_negative = allow_negative;
  if (py::isinstance<py::int_>(source) || !py::hasattr(source, "__len__")) {
    const Index s = arg_as<Index>(source, "sssp: source", "an int or a list of ints");
    return with_types<float, double>(A, "sssp", [&](const auto& M) -> py::object {
      auto r = [&] {
        py::gil_scoped_release nogil;
        return algo::sssp(M, s, o);
      }();
      return py::cast(Exported::from_vector(std::move(r.distances.storage())));
    });
  }
  const auto sources = arg_as<std::vector<Index>>(source, "sssp: source", "an int or a list of ints");
  return with_types<float, double>(A, "sssp", [&](const auto& M) -> py::object {
    auto r = [&] {
      py::gil_scoped_release nogil;
      return algo::sssp(M, sources, o);
    }();
    return py::cast(Exported::from_dense(std::move(r.distances.storage())));
  });
}

py::object alg_components(PyMatrix& A) {
  return with_types<GEBLAS_PY_GRAPH_TYPES>(A, "connected_components", [&](const auto& M) -> py::object {
    algo::ComponentsResult r = [&] {
      py::gil_scoped_release nogil;
      return algo::connected_components(M);
    }();
    return py::cast(Exported::from_vector(std::move(r.labels.storage())));
  });
}

// order[new] = old, as algo::locality_order; an int64 array on the host (the order is
// computed there whatever A's device).
py::object alg_locality_order(PyMatrix& A) {
  return with_types<GEBLAS_PY_GRAPH_TYPES>(A, "locality_order", [&](const auto& M) -> py::object {
    std::vector<Index> order = [&] {
      py::gil_scoped_release nogil;
      return algo::locality_order(M);
    }();
    return py::cast(Exported::from_vector(std::move(Vector<Index>::from_dense(order).storage())));
  });
}

std::int64_t alg_triangles(PyMatrix& A) {
  return with_types<GEBLAS_PY_GRAPH_TYPES>(A, "triangle_count", [&](const auto& M) {
    py::gil_scoped_release nogil;
    return algo::triangle_count(M);
  });
}

PyMatrix alg_gcn_normalize(PyMatrix& A) {
  return with_types<float, double>(A, "gcn_normalize", [&](const auto& M) {
    auto r = [&] {
      py::gil_scoped_release nogil;
      return algo::gcn_normalize(M);
    }();
    return PyMatrix(std::move(r.storage()));
  });
}

// GNN aggregations: Y = agg(A, X) for a dense X (array), into `out` or a new array.
template <class Agg>
py::object gnn_aggregate(PyMatrix& A, py::object x, py::object out, const char* what, Agg agg) {
  Operand X = operand(x, "X");
  if (X.kind != Operand::Kind::dense) throw DimensionMismatch(std::string(what) + ": X must be a 2-D array");
  DenseOut Y = dense_out(out, A.s().nrows, X.dense.ncols, A.s().type, A.s().device, what);
  return with_types<float, double>(A, what, [&](const auto& M) -> py::object {
    using T = typename std::decay_t<decltype(M)>::value_type;
    return finish_dense(Y, [&](DenseStorage& ys) {
      // The typed façades own their storage: move the borrowed storages in and back out.
      DenseMatrix<T> Yt(std::move(ys));
      DenseMatrix<T> Xt(std::move(X.dense));
      struct Restore {
        DenseStorage& y;
        DenseMatrix<T>& yt;
        DenseStorage& x;
        DenseMatrix<T>& xt;
        ~Restore() {
          y = std::move(yt.storage());
          x = std::move(xt.storage());
        }
      } restore{ys, Yt, X.dense, Xt};
      if (Yt.storage().type != type_id<T> || Xt.storage().type != type_id<T>)
        throw DomainMismatch(std::string(what) + ": X and the output must have A's type " + type_name(type_id<T>) +
                             ", X is " + type_name(Xt.storage().type));
      agg(Yt, M, Xt);
    });
  });
}

}  // namespace

void bind_algorithms(py::module_& m) {
  m.def("pagerank", &alg_pagerank, py::arg("A"), py::arg("damping") = 0.85, py::arg("tolerance") = 1e-6,
        py::arg("max_iterations") = 100, py::arg("weighted") = false, py::arg("seeds") = py::none(),
        py::arg("info") = false);
  m.def("bfs", &alg_bfs, py::arg("A"), py::arg("source"), py::arg("parents") = false,
        py::arg("direction") = "automatic");
  m.def("sssp", &alg_sssp, py::arg("A"), py::arg("source"), py::arg("allow_negative") = false);
  m.def("connected_components", &alg_components, py::arg("A"));
  m.def("triangle_count", &alg_triangles, py::arg("A"));
  m.def("locality_order", &alg_locality_order, py::arg("A"));
  m.def("gcn_normalize", &alg_gcn_normalize, py::arg("A"));
  m.def(
      "gcn_aggregate",
      [](PyMatrix& A, py::object X, py::object out) {
        return gnn_aggregate(A, X, out, "gcn_aggregate",
                             [](auto& Y, const auto& M, const auto& Xt) { algo::gcn_aggregate(Y, M, Xt); });
      },
      py::arg("A_hat"), py::arg("X"), py::arg("out") = py::none());
  m.def(
      "sage_mean_aggregate",
      [](PyMatrix& A, py::object X, py::object out) {
        return gnn_aggregate(A, X, out, "sage_mean_aggregate",
                             [](auto& Y, const auto& M, const auto& Xt) { algo::sage_mean_aggregate(Y, M, Xt); });
      },
      py::arg("A"), py::arg("X"), py::arg("out") = py::none());
  m.def(
      "sage_max_aggregate",
      [](PyMatrix& A, py::object X, py::object out) {
        return gnn_aggregate(A, X, out, "sage_max_aggregate",
                             [](auto& Y, const auto& M, const auto& Xt) { algo::sage_max_aggregate(Y, M, Xt); });
      },
      py::arg("A"), py::arg("X"), py::arg("out") = py::none());
}

}  // namespace geblas::python
