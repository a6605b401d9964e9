// Saves checkpoints of one large variable into a directory, over and over, through a
// CheckpointManager (max_to_keep 1), until killed: checkpoint_test kills it in the middle of a
// write to show that a crash never leaves a damaged checkpoint behind.
//   checkpoint_writer <directory> <megabytes>
#include <cstdlib>
#include <iostream>
#include <string>

#include "eagle/eagle.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: checkpoint_writer <directory> <megabytes>\n";
    return 2;
  }
  const std::int64_t elements = std::atoll(argv[2]) * (1 << 20) / 4;
  eagle::Variable big(eagle::fill({elements}, 7.0, eagle::kFloat32), {"big"});
  eagle::train::Checkpoint checkpoint({{"value", big}});
  eagle::train::CheckpointManager manager(checkpoint, argv[1], 1);
  for (;;) {
    manager.save();
    big.assign_add(eagle::ones({elements}));
  }
}
