#include "eagle/keras/utils.hpp"

#include "eagle/random_seed.hpp"

namespace eagle::keras::utils {

void set_random_seed(std::uint64_t seed) { random::set_seed(seed); }

}  // namespace eagle::keras::utils
