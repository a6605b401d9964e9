#include "reduction_plan.hpp"

namespace eagle::cuda {

ReductionPlan make_reduction_plan(const Shape& in, const std::vector<int>& axes) {
  ReductionPlan plan;
  const int rank = in.rank();
  bool is_reduced[Shape::kMaxRank] = {};
  for (int a : axes) is_reduced[a] = true;
  std::int64_t kept_count = 1;
  std::int64_t reduced_count = 1;
  for (int a = 0; a < rank; ++a) (is_reduced[a] ? reduced_count : kept_count) *= in[a];
  if (kept_count == 0) return plan;  // kNothingToWrite
  if (reduced_count == 0) {
    plan.kind = ReductionPlan::Kind::kIdentity;
    return plan;
  }
  if (reduced_count == 1) {
    plan.kind = ReductionPlan::Kind::kCopy;
    return plan;
  }
  plan.kind = ReductionPlan::Kind::kReduce;

  // Groups of adjacent axes that are all reduced or all kept, size-1 axes left out.
  struct Group {
    bool reduced;
    std::int64_t size;
  };
  Group groups[Shape::kMaxRank] = {};
  int num_groups = 0;
  for (int a = 0; a < rank; ++a) {
    if (in[a] == 1) continue;
    if (num_groups > 0 && groups[num_groups - 1].reduced == is_reduced[a]) {
      groups[num_groups - 1].size *= in[a];
    } else {
      groups[num_groups++] = Group{is_reduced[a], in[a]};
    }
  }
  // [kept?] reduced [kept?] is a direct view; anything longer interleaves and is transposed.
  int first_reduced = 0;
  while (!groups[first_reduced].reduced) ++first_reduced;
  const int reduced_groups_end = first_reduced + 1;
  bool interleaved = false;
  for (int g = reduced_groups_end; g < num_groups; ++g) interleaved |= groups[g].reduced;
  if (!interleaved && first_reduced <= 1 && num_groups - reduced_groups_end <= 1) {
    plan.outer = first_reduced == 1 ? groups[0].size : 1;
    plan.reduced = groups[first_reduced].size;
    plan.inner = reduced_groups_end < num_groups ? groups[reduced_groups_end].size : 1;
    return plan;
  }
  std::vector<std::int64_t> dims;
  for (int a = 0; a < rank; ++a) {
    if (!is_reduced[a]) plan.perm.push_back(a);
  }
  for (int a = 0; a < rank; ++a) {
    if (is_reduced[a]) plan.perm.push_back(a);
  }
  for (int a : plan.perm) dims.push_back(in[a]);
  plan.transposed = Shape(dims);
  plan.outer = kept_count;
  plan.reduced = reduced_count;
  plan.inner = 1;
  return plan;
}

}  // namespace eagle::cuda
