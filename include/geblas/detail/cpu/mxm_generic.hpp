// The multiply step of mxm for a user-defined semiring on the CPU: fills plan.t_dense or
// plan.t_sparse from the validated operands. The mask and accumulator are applied
// afterwards by the library (finish_user_mxm), so this is all a user's code instantiates.
#pragma once

#include "geblas/detail/cpu/dense_products.hpp"
#include "geblas/detail/cpu/spgemm.hpp"
#include "geblas/detail/cpu/spmm.hpp"
#include "geblas/detail/mxm_plan.hpp"

namespace geblas::detail::cpu {

template <class S>
void mxm_generic(UserMxmPlan& plan) {
  using T = typename S::value_type;
  switch (plan.form) {
    case UserMxmPlan::Form::sparse_dense:
      spmm<S, T>(csr_view<T>(*plan.a_sparse), dense_view<T>(*plan.b_dense), dense_view<T>(plan.t_dense),
                 false);
      return;
    case UserMxmPlan::Form::sparse_sparse:
      plan.t_sparse = spgemm<S, T>(csr_view<T>(*plan.a_sparse), csr_view<T>(*plan.b_sparse),
                                   [](Index, auto&) { return false; });
      return;
    case UserMxmPlan::Form::dense_sparse:
      dense_sparse<S, T>(dense_view<T>(*plan.a_dense), csr_view<T>(*plan.b_sparse),
                         dense_view<T>(plan.t_dense));
      return;
    case UserMxmPlan::Form::dense_dense:
      dense_dense<S, T>(dense_view<T>(*plan.a_dense), dense_view<T>(*plan.b_dense),
                        dense_view<T>(plan.t_dense));
      return;
  }
}

}  // namespace geblas::detail::cpu
