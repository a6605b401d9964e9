// Synchronous training across processes with MultiWorkerMirroredStrategy: launch it with MPI,
//
//   mpiexec -n 2 build/default/samples/multi_worker_training
//
// (as root, Open MPI also wants OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; more
// processes than cores, --oversubscribe). Every process is one worker; all of them read the same
// data and fit the same Keras model, each computing its replicas' slices of every global batch,
// and the gradients are summed across the workers before each update, so the workers' weights
// stay identical. The chief (worker 0) prints the progress bar. Exits 77 when eagle was built
// without MPI.
#include <cstdio>

#include <fmt/format.h>

#include <eagle/eagle.hpp>

namespace keras = eagle::keras;
namespace layers = eagle::keras::layers;

namespace {

// Points of [-1, 1]^2 labelled by the ring they fall in (as samples/keras_mlp.cpp): the same
// seed on every worker, so every worker has the same data.
struct Rings {
  eagle::Tensor x;
  eagle::Tensor labels;
};

Rings rings(std::int64_t n, std::uint64_t seed) {
  Rings d;
  d.x = eagle::random_uniform({n, 2}, -1, 1, eagle::kFloat32, seed);
  const eagle::Tensor r = eagle::sqrt(eagle::reduce_sum(eagle::square(d.x), -1));
  d.labels = eagle::cast(r > 0.45f, eagle::kInt32) + eagle::cast(r > 0.8f, eagle::kInt32);
  return d;
}

}  // namespace

int main() {
  eagle::debugging::set_log_level(eagle::debugging::LogLevel::kInfo);
  std::unique_ptr<eagle::distribute::MultiWorkerMirroredStrategy> strategy;
  try {
    strategy = std::make_unique<eagle::distribute::MultiWorkerMirroredStrategy>();
  } catch (const eagle::UnimplementedError& e) {
    std::printf("SKIP: %s\n", e.what());
    return 77;
  }
  eagle::debugging::set_log_level(eagle::debugging::LogLevel::kWarning);
  const bool chief = strategy->is_chief();
  if (chief) {
    std::printf("%d workers, %d replicas in sync\n", strategy->num_workers(),
                strategy->num_replicas_in_sync());
  }
  const Rings train = rings(2000, 1);
  const Rings test = rings(500, 2);

  keras::Sequential model;
  {
    // Created in the scope: mirrored, and every worker starts from worker 0's initial weights.
    auto scope = strategy->scope();
    model.add(layers::Input({2}));
    model.add(layers::Dense(64, "relu"));
    model.add(layers::Dense(64, "relu"));
    model.add(layers::Dense(3, "softmax"));
    model.compile(std::make_shared<eagle::optimizers::Adam>(eagle::optimizers::AdamOptions{0.01}),
                  "sparse_categorical_crossentropy", {"accuracy"});
  }
  keras::FitOptions options;
  options.epochs = 5;
  options.batch_size = 64;  // the global batch: each worker's replicas take their slices
  options.seed = 7;         // the same shuffle on every worker
  model.fit(train.x, train.labels, options);
  keras::EvaluateOptions quiet;
  quiet.verbose = 0;
  const std::vector<double> result = model.evaluate(test.x, test.labels, quiet);
  // Every worker computed the same numbers; the chief reports them.
  if (chief) std::printf("test loss %.4f, test accuracy %.4f\n", result[0], result[1]);
  return 0;
}
