// eagle::distribute: training on several devices (docs/guide.md, "Distributed training:
// MirroredStrategy" and "Towers and asynchronous training").
#pragma once

#include "eagle/distribute/cluster_resolver.hpp"
#include "eagle/distribute/cluster_spec.hpp"
#include "eagle/distribute/compute_average_loss.hpp"
#include "eagle/distribute/connect_to_cluster.hpp"
#include "eagle/distribute/cross_device_ops.hpp"
#include "eagle/distribute/mirrored_strategy.hpp"
#include "eagle/distribute/parameter_server_training.hpp"
#include "eagle/distribute/per_replica.hpp"
#include "eagle/distribute/server.hpp"
#include "eagle/distribute/strategy.hpp"
// Several processes (mpiexec): MultiWorkerMirroredStrategy.
#include "eagle/distribute/multi_worker_mirrored_strategy.hpp"
