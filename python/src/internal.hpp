// The part of libgeblas that the Python module calls beneath the public API: the
// type-erased entry points over storage structs (geblas::detail), which dispatch on the
// value type at run time, so that the module instantiates no kernel. Every file of the
// module reaches that layer through this header only: the names it uses are listed once,
// here, as geblas::python::lib::*, and a change of the layer is met in one place.
// Plain C++ (no Python): the array checks, which a fuzz target builds, use it too.
#pragma once

#include "geblas/detail/spmm_arg.hpp"
#include "geblas/detail/storage.hpp"
#include "geblas/detail/stream_state.hpp"
#include "geblas/io.hpp"
#include "geblas/jit.hpp"
#include "geblas/operations/apply.hpp"
#include "geblas/operations/assign.hpp"
#include "geblas/operations/convert.hpp"
#include "geblas/operations/ewise.hpp"
#include "geblas/operations/extract.hpp"
#include "geblas/operations/mxm.hpp"
#include "geblas/operations/mxv.hpp"
#include "geblas/operations/reduce.hpp"
#include "geblas/operations/select.hpp"
#include "geblas/operations/transpose.hpp"
#include "geblas/sparse_matrix.hpp"
#include "geblas/vector.hpp"

namespace geblas::python {

// The storage every binding passes around: objects are these, typed façades only where
// the public API takes one (masks, algorithms).
using detail::DenseStorage;
using detail::RawBuffer;
using detail::SparseStorage;
using detail::VectorStorage;

namespace lib {
// Making and moving storage.
using detail::adopt_csr;
using detail::build_csr;
using detail::build_sparse_vector;
using detail::check_dimensions;
using detail::copy_bytes;
using detail::make_dense;
using detail::make_dense_vector;
using detail::make_sparse;
using detail::make_sparse_vector;
using detail::to_dense_storage;
using detail::to_device;
using detail::to_sparse_storage;

// The operations, with their argument structs.
using detail::apply;
using detail::ApplyOp;
using detail::assign;
using detail::assign_scalar;
using detail::convert;
using detail::ewise;
using detail::EwiseKind;
using detail::extract;
using detail::extract_column;
using detail::jit_mxm;
using detail::mxm;
using detail::mxv;
using detail::reduce_rows;
using detail::reduce_scalar;
using detail::select;
using detail::SelectArgs;
using detail::transpose;
using detail::vxm;

// geblas.torch's fused products and its stream ordering.
using detail::cuda_spmm_arg_extreme;
using detail::cuda_spmm_arg_scatter;
using detail::cuda_stream_wait;

// Files.
using io::detail::read_graph;
using io::detail::read_matrix_market;
using io::detail::write_matrix_market;
}  // namespace lib

}  // namespace geblas::python
