// The global random seed (tf.random.set_seed): which seed each random op, initializer, Dataset
// shuffle and fit's shuffling draws with.
//
// Note [Global and op seeds]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// TensorFlow's four cases, for a draw that is given an op seed or not:
//  - neither seed: a new seed at every draw (std::random_device, then a counter);
//  - an op seed alone: that seed, so the same values in every run;
//  - a global seed alone: the next seed of a sequence that the global seed fixes and set_seed
//    restarts, so a program repeats itself from set_seed on, and two draws still differ;
//  - both: the op seed mixed with the global one, so a new global seed changes seeded draws too,
//    as TensorFlow combines the two. kDefaultGlobalSeed mixes to the op seed itself: an op seed
//    without a global one means the pair (kDefaultGlobalSeed, op seed), as in TensorFlow, whose
//    test cases set that seed before each test (and eagle's tests do the same).
// Threads drawing at once take the sequence's seeds in the order they come, so a program whose
// threads draw unseeded values repeats only where that order does (a seeded draw always does).
#pragma once

#include <cstdint>
#include <optional>

namespace eagle::random {

// TensorFlow's DEFAULT_GRAPH_SEED.
inline constexpr std::uint64_t kDefaultGlobalSeed = 87654321;

// tf.random.set_seed: sets the global seed and restarts its sequence; std::nullopt unsets it.
void set_seed(std::optional<std::uint64_t> seed);
// The global seed, if one is set.
std::optional<std::uint64_t> global_seed();
// The seed a draw given `op_seed` (or none) uses, by Note [Global and op seeds]. Without an op
// seed, each call takes the next one of the sequence.
std::uint64_t get_seed(std::optional<std::uint64_t> op_seed);

}  // namespace eagle::random
