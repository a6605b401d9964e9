// keras.utils: the one random seed for a whole program.
#pragma once

#include <cstdint>

namespace eagle::keras::utils {

// keras.utils.set_random_seed: makes a program's random draws repeat (initializers, Dropout, fit's
// and Dataset's shuffling) by setting eagle's global seed (eagle::random::set_seed, Note [Global
// and op seeds]). Keras's also seeds Python's and NumPy's generators, which C++ does not have.
void set_random_seed(std::uint64_t seed);

}  // namespace eagle::keras::utils
