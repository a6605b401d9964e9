// Keras's progress output under a MultiWorkerMirroredStrategy: the chief's alone.
#pragma once

#include "eagle/distribute/multi_worker_mirrored_strategy.hpp"

namespace eagle::keras {

// `verbose`, or 0 on a worker other than the chief (worker 0) of a MultiWorkerMirroredStrategy:
// every worker computes the same logs, and one progress bar is enough (**eagle**: TensorFlow
// prints on every worker; Note [MultiWorkerMirroredStrategy over MPI]).
inline int verbose_on_this_worker(const distribute::Strategy* strategy, int verbose) {
  const auto* multi = dynamic_cast<const distribute::MultiWorkerMirroredStrategy*>(strategy);
  return multi != nullptr && !multi->is_chief() ? 0 : verbose;
}

}  // namespace eagle::keras
