// The scalar helpers CPU kernels use unqualified, from the backend-neutral kernels/ headers.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "eagle/half.hpp"
#include "kernels/numeric.hpp"
#include "kernels/scalar_math.hpp"

namespace eagle::cpu {

using kernels::compute_t;
using kernels::convert;
using kernels::is_half_v;

// Wrapping integer arithmetic, shared with the CUDA kernels.
using kernels::wrap_add;
using kernels::wrap_mul;
using kernels::wrap_neg;
using kernels::wrap_sub;

}  // namespace eagle::cpu
