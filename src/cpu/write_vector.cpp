// The last step of every vector operation on the host: w<m, replace> = accum(w, t)
// with the GraphBLAS rules, w keeping its storage kind (see write_vector in
// core/backend.hpp). Both w and t are read as bitmaps, so one loop serves every
// combination of dense / sparse w, t and mask.
#include <cstdint>
#include <vector>

#include "cpu/kernels.hpp"
#include "cpu/parallel.hpp"
#include "cpu/mask_rows.hpp"
#include "cpu/vector_bitmap.hpp"

namespace geblas::detail::cpu {

void write_vector(VectorStorage& w, VectorResult& t, const Options& o, const ScalarBytes& identity) {
  const Index n = w.size;
  // No mask and no accumulator: w is t when their forms match. A sparse t moves in as it
  // is, with no pass over the n positions (a sparse result of a few entries costs what it
  // holds); so do a dense w's values from a dense t with every entry present.
  if (o.mask.empty() && o.accum.empty() && !w.dense && !t.t.dense && t.t.size == n && t.t.type == w.type) {
    t.t.device = w.device;
    w = std::move(t.t);
    return;
  }
  if (o.mask.empty() && o.accum.empty() && w.dense && t.t.dense && t.present.bytes() == 0 && t.t.type == w.type) {
    w.values = std::move(t.t.values);
    w.nvals = n;
    return;
  }
  // The mask is read before w changes: it may be w itself.
  std::vector<std::uint8_t> allowed(static_cast<std::size_t>(n), 1);
  if (!o.mask.empty()) MaskRows(o.mask).fill(0, allowed.data(), n);
  const bool has_accum = !o.accum.empty();
  visit_type(w.type, [&]<class V>() {
    const BitmapRead<V> tb(t);
    with_accum_op<V>(o.accum.op, [&]<class Op>() {
      if (w.dense) {
        const V id = *static_cast<const V*>(identity.data());
        V* wv = w.values.as<V>();
#pragma omp parallel for schedule(static) if (parallel_elements(n))
        for (Index i = 0; i < n; ++i) {
          if (allowed[static_cast<std::size_t>(i)]) {
            if (tb.has(i)) wv[i] = has_accum ? Op::apply(wv[i], tb.value(i)) : tb.value(i);
            else if (!has_accum) wv[i] = id;
          } else if (o.replace) {
            wv[i] = id;
          }
        }
        return;
      }
      // Sparse w: z(i) for every position, then compacted.
      const BitmapRead<V> wb(w);
      RawBuffer zv(static_cast<std::size_t>(n) * sizeof(V), Device::cpu());
      std::vector<std::uint8_t> zp(static_cast<std::size_t>(n), 0);
      V* z = zv.as<V>();
#pragma omp parallel for schedule(static) if (parallel_elements(n))
      for (Index i = 0; i < n; ++i) {
        const bool in_w = wb.has(i), in_t = tb.has(i);
        std::uint8_t& p = zp[static_cast<std::size_t>(i)];
        if (allowed[static_cast<std::size_t>(i)]) {
          if (in_t && in_w && has_accum) { z[i] = Op::apply(wb.value(i), tb.value(i)); p = 1; }
          else if (in_t) { z[i] = tb.value(i); p = 1; }
          else if (in_w && has_accum) { z[i] = wb.value(i); p = 1; }
        } else if (in_w && !o.replace) {
          z[i] = wb.value(i);
          p = 1;
        }
      }
      Index count = 0;
      for (Index i = 0; i < n; ++i) count += zp[static_cast<std::size_t>(i)];
      VectorStorage out = make_sparse_vector(n, w.type, Device::cpu());
      out.nvals = count;
      out.indices = RawBuffer(static_cast<std::size_t>(count) * sizeof(ColIndex), Device::cpu());
      out.values = RawBuffer(static_cast<std::size_t>(count) * sizeof(V), Device::cpu());
      ColIndex* oi = out.indices.as<ColIndex>();
      V* ov = out.values.as<V>();
      Index k = 0;
      for (Index i = 0; i < n; ++i)
        if (zp[static_cast<std::size_t>(i)]) {
          oi[k] = static_cast<ColIndex>(i);
          ov[k++] = z[i];
        }
      w = std::move(out);
    });
  });
}

}  // namespace geblas::detail::cpu
