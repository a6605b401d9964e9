// eagle::train::Checkpoint and CheckpointManager: a model and its optimizer saved and restored
// into new objects continue bit for bit, deferred restoration of a model built later, typed
// errors for missing, damaged and mismatched checkpoints, max_to_keep, and a writer killed in the
// middle of a save.
#include <catch2/catch.hpp>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "eagle/eagle.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
namespace keras = eagle::keras;
namespace layers = eagle::keras::layers;
using eagle::Tensor;
using eagle::Variable;
using eagle::train::Checkpoint;
using eagle::train::CheckpointManager;

// A fresh directory under the system's temporary one, removed at the end.
struct TempDir {
  TempDir() {
    path = fs::temp_directory_path() /
           ("eagle-checkpoint-test-" + std::to_string(::getpid()) + "-" + std::to_string(next++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
  fs::path path;
  static inline int next = 0;
};

std::shared_ptr<keras::Sequential> make_model(std::uint64_t seed, bool with_input = true) {
  auto model = std::make_shared<keras::Sequential>();
  if (with_input) model->add(layers::Input({3}));
  layers::DenseOptions o;
  o.kernel_initializer = eagle::initializers::glorot_uniform(seed);
  model->add(layers::Dense(4, "relu", o));
  model->add(layers::Dense(2, {}, o));
  return model;
}

const Tensor& inputs() {
  static const Tensor x = eagle::constant({0.5f, -1.f, 2.f, 1.f, 0.f, -0.5f}, {2, 3});
  return x;
}

// One Adam step on the model's mean squared output.
void step(keras::Sequential& model, eagle::optimizers::Optimizer& optimizer) {
  eagle::GradientTape tape;
  const Tensor loss = eagle::reduce_mean(eagle::square(model(inputs())));
  const auto variables = model.trainable_variables();
  optimizer.apply_gradients(tape.gradient(loss, variables), variables);
}

std::vector<std::vector<float>> values(const std::vector<Variable>& variables) {
  std::vector<std::vector<float>> out;
  for (const Variable& v : variables) out.push_back(v.read_value().to_vector<float>());
  return out;
}

eagle::optimizers::AdamOptions adam_options() {
  eagle::optimizers::AdamOptions o;
  o.learning_rate = 0.01;
  o.base.use_ema = true;
  return o;
}

}  // namespace

TEST_CASE("a model and its optimizer restored into new objects continue bit for bit") {
  TempDir dir;
  auto model = make_model(1);
  eagle::optimizers::Adam adam(adam_options());
  Variable counter(eagle::constant(std::int64_t{41}), {"counter"});
  Checkpoint checkpoint({{"model", model}, {"optimizer", adam}, {"counter", counter}});
  CheckpointManager manager(checkpoint, dir.path.string(), 3);
  for (int i = 0; i < 3; ++i) step(*model, adam);
  const std::string path = manager.save();
  CHECK(path == dir / "ckpt-1");
  CHECK(fs::exists(dir / "ckpt-1.eaglecheckpoint"));
  for (int i = 0; i < 2; ++i) step(*model, adam);
  const auto expected = values(model->trainable_variables());

  // Other weights, a fresh optimizer with no slots yet: all of it comes from the checkpoint.
  auto restored_model = make_model(2);
  eagle::optimizers::Adam restored_adam(adam_options());
  Variable restored_counter(eagle::constant(std::int64_t{0}), {"counter"});
  Checkpoint restored(
      {{"model", restored_model}, {"optimizer", restored_adam}, {"counter", restored_counter}});
  const auto status = restored.restore(*eagle::train::latest_checkpoint(dir.path.string()));
  status.assert_consumed();
  CHECK(restored.save_counter() == 1);
  CHECK(restored_adam.iterations() == 3);
  CHECK(restored_counter.read_value().item<std::int64_t>() == 41);
  for (int i = 0; i < 2; ++i) step(*restored_model, restored_adam);
  CHECK(values(restored_model->trainable_variables()) == expected);
  CHECK(restored_adam.iterations() == 5);
  // The moving averages came back too.
  for (std::size_t i = 0; i < model->trainable_variables().size(); ++i) {
    CHECK(
        restored_adam.get_slot(restored_model->trainable_variables()[i], "average")
            .read_value()
            .to_vector<float>() ==
        adam.get_slot(model->trainable_variables()[i], "average").read_value().to_vector<float>());
  }
}

TEST_CASE("a model not built yet takes its weights when it is built") {
  TempDir dir;
  auto model = make_model(1);
  Checkpoint checkpoint({{"model", model}});
  const std::string path = checkpoint.save(dir / "weights");
  CHECK(path == dir / "weights-1");
  auto later = make_model(3, false);
  REQUIRE_FALSE(later->built());
  Checkpoint restored({{"model", later}});
  const auto status = restored.restore(path);
  CHECK(status.deferred.size() == 4);
  CHECK_THROWS_AS(status.assert_consumed(), eagle::FailedPreconditionError);
  status.assert_existing_objects_matched();
  CHECK(later->pending_restore());
  (*later)(inputs());  // builds
  CHECK_FALSE(later->pending_restore());
  CHECK(values(later->weights()) == values(model->weights()));
}

TEST_CASE("an unbuilt model's optimizer slots wait for the model, then training goes on") {
  TempDir dir;
  auto model = make_model(1, false);
  auto adam = std::make_shared<eagle::optimizers::Adam>(adam_options());
  Checkpoint checkpoint({{"model", model}, {"optimizer", adam}});
  for (int i = 0; i < 3; ++i) step(*model, *adam);
  const std::string path = checkpoint.save(dir / "ckpt");
  for (int i = 0; i < 2; ++i) step(*model, *adam);
  const auto expected = values(model->trainable_variables());

  // A model with no input shape has no weights until its first call: its weights and, with
  // them, the optimizer's slots of those weights wait (TensorFlow's deferred restoration).
  auto later = make_model(3, false);
  auto later_adam = std::make_shared<eagle::optimizers::Adam>(adam_options());
  Checkpoint restored({{"model", later}, {"optimizer", later_adam}});
  const auto status = restored.restore(path);
  CHECK(status.unused_keys.empty());
  // 4 weights, and each one's 3 slots (momentum, velocity, average).
  CHECK(status.deferred.size() == 4 + 4 * 3);
  CHECK(later_adam->iterations() == 3);
  (*later)(inputs());  // builds: the weights take their values, the slots wait for the step
  for (int i = 0; i < 2; ++i) step(*later, *later_adam);
  CHECK(values(later->trainable_variables()) == expected);
  // Every variable but the int64 counter (checked above): the learning rate, averages, slots.
  const auto float_state = [](const eagle::optimizers::Optimizer& optimizer) {
    const std::vector<Variable> all = optimizer.variables();
    return values(std::vector<Variable>(all.begin() + 1, all.end()));
  };
  CHECK(later_adam->iterations() == 5);
  CHECK(float_state(*later_adam) == float_state(*adam));

  // An optimizer destroyed before the model is built: the weights still come, the slots do not.
  auto orphan = make_model(4, false);
  {
    auto short_lived = std::make_shared<eagle::optimizers::Adam>(adam_options());
    Checkpoint partial({{"model", orphan}, {"optimizer", short_lived}});
    partial.restore(path);
  }
  (*orphan)(inputs());
  CHECK_FALSE(orphan->pending_restore());
}

TEST_CASE("checkpoint errors: missing, truncated, damaged, mismatched, unused values") {
  TempDir dir;
  auto model = make_model(1);
  Checkpoint checkpoint({{"model", model}});
  const std::string path = checkpoint.write(dir / "one");
  const std::string file = path + ".eaglecheckpoint";

  CHECK_THROWS_MATCHES(checkpoint.restore(dir / "nothing"), eagle::NotFoundError,
                       Catch::Message("Failed to find any matching files for " + dir / "nothing"));
  const auto size = fs::file_size(file);
  {
    // Truncated: the file ends early.
    fs::copy_file(file, dir / "cut.eaglecheckpoint");
    fs::resize_file(dir / "cut.eaglecheckpoint", size - 20);
    CHECK_THROWS_MATCHES(checkpoint.restore(dir / "cut"), eagle::DataLossError,
                         Catch::Message("Checkpoint " + dir / "cut.eaglecheckpoint" +
                                        " is truncated or corrupted: the end marker is missing "
                                        "(the write did not finish)"));
  }
  {
    // One byte flipped in a value: the CRC says so.
    fs::copy_file(file, dir / "flip.eaglecheckpoint");
    std::fstream f(dir / "flip.eaglecheckpoint", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size / 2));
    char c;
    f.read(&c, 1);
    f.seekp(static_cast<std::streamoff>(size / 2));
    c = static_cast<char>(c ^ 0x10);
    f.write(&c, 1);
    f.close();
    CHECK_THROWS_MATCHES(checkpoint.restore(dir / "flip"), eagle::DataLossError,
                         Catch::Message("Checkpoint " + dir / "flip.eaglecheckpoint" +
                                        " is truncated or corrupted: the CRC-32 does not match"));
  }
  {
    // Another architecture: refused before anything changes.
    auto other = std::make_shared<keras::Sequential>();
    other->add(layers::Input({3}));
    other->add(layers::Dense(5));
    other->add(layers::Dense(2));
    const auto before = values(other->weights());
    Checkpoint mismatched({{"model", other}});
    CHECK_THROWS_MATCHES(
        mismatched.restore(path), eagle::InvalidArgumentError,
        Catch::Message("Received incompatible tensor with shape (3, 4) and dtype float32 when "
                       "attempting to restore variable with shape (3, 5) and dtype float32 and "
                       "name " +
                       other->weights()[0].name() + " (checkpoint key 'model/weights/0')"));
    CHECK(values(other->weights()) == before);
  }
  {
    // Values no tracked object takes, and tracked variables without values.
    Variable extra(eagle::constant(1.0f), {"extra"});
    Checkpoint bigger({{"model", model}, {"extra", extra}});
    const auto status = bigger.restore(path);
    CHECK(status.missing == std::vector<std::string>{"extra"});
    CHECK_THROWS_MATCHES(status.assert_consumed(), eagle::FailedPreconditionError,
                         Catch::Message("Tracked variables the checkpoint had no value for: "
                                        "extra"));
    Checkpoint smaller({{"extra", extra}});
    const auto partial = smaller.restore(path);
    CHECK(partial.unused_keys.size() == 4);
    CHECK_THROWS_AS(partial.assert_consumed(), eagle::FailedPreconditionError);
    partial.expect_partial();
  }
}

TEST_CASE("CheckpointManager: max_to_keep, the checkpoint file, a new manager picks up") {
  TempDir dir;
  Variable v(eagle::constant(1.0f), {"v"});
  Checkpoint checkpoint({{"v", v}});
  CheckpointManager manager(checkpoint, dir.path.string(), 2);
  CHECK_FALSE(manager.latest_checkpoint());
  CHECK_FALSE(manager.restore_or_initialize());
  for (int i = 0; i < 4; ++i) {
    v.assign(eagle::constant(static_cast<float>(i)));
    manager.save();
  }
  CHECK(manager.checkpoints() == std::vector<std::string>{dir / "ckpt-3", dir / "ckpt-4"});
  CHECK_FALSE(fs::exists(dir / "ckpt-1.eaglecheckpoint"));
  CHECK_FALSE(fs::exists(dir / "ckpt-2.eaglecheckpoint"));
  CHECK(*eagle::train::latest_checkpoint(dir.path.string()) == dir / "ckpt-4");
  std::ifstream state(dir / "checkpoint");
  const std::string text((std::istreambuf_iterator<char>(state)), std::istreambuf_iterator<char>());
  CHECK(text ==
        "model_checkpoint_path: \"ckpt-4\"\n"
        "all_model_checkpoint_paths: \"ckpt-3\"\n"
        "all_model_checkpoint_paths: \"ckpt-4\"\n");
  // A new process's manager: the same list, and the counter comes back with the restore.
  Variable w(eagle::constant(0.0f), {"v"});
  Checkpoint fresh({{"v", w}});
  CheckpointManager again(fresh, dir.path.string(), 2);
  CHECK(again.checkpoints() == manager.checkpoints());
  again.restore_or_initialize()->assert_consumed();
  CHECK(w.read_value().item<float>() == 3.0f);
  CHECK(fresh.save_counter() == 4);
  CHECK(again.save() == dir / "ckpt-5");
  CHECK_THROWS_AS(CheckpointManager(checkpoint, dir.path.string(), 0), eagle::InvalidArgumentError);
}

// Note [Checkpoint format]: writes go to a temporary file renamed into place. A writer killed in
// the middle of a save leaves the previous checkpoint as the latest, whole.
TEST_CASE("a writer killed in the middle of a save leaves the last checkpoint intact") {
  TempDir dir;
  const std::string directory = dir.path.string();
  pid_t child = 0;
  char* argv[] = {const_cast<char*>(EAGLE_CHECKPOINT_WRITER), const_cast<char*>(directory.c_str()),
                  const_cast<char*>("96"), nullptr};
  REQUIRE(::posix_spawn(&child, EAGLE_CHECKPOINT_WRITER, nullptr, nullptr, argv, environ) == 0);
  // Wait until one checkpoint is recorded and the next one is being written, then kill.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool mid_write = false;
  while (std::chrono::steady_clock::now() < deadline && !mid_write) {
    if (eagle::train::latest_checkpoint(directory)) {
      for (const auto& entry : fs::directory_iterator(dir.path)) {
        const std::string name = entry.path().filename().string();
        if (name.find(".eaglecheckpoint.tmp-") != std::string::npos) mid_write = true;
      }
    }
    if (!mid_write) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  ::kill(child, SIGKILL);
  int wait_status = 0;
  ::waitpid(child, &wait_status, 0);
  REQUIRE(mid_write);
  // The latest recorded checkpoint reads whole, with one value everywhere (7, 8, ...).
  const auto latest = eagle::train::latest_checkpoint(directory);
  REQUIRE(latest);
  Variable big(eagle::zeros({96 * (1 << 20) / 4}), {"big"});
  Checkpoint checkpoint({{"value", big}});
  checkpoint.restore(*latest).assert_consumed();
  const Tensor value = big.read_value();
  CHECK(eagle::reduce_min(value).item<float>() == eagle::reduce_max(value).item<float>());
  CHECK(eagle::reduce_min(value).item<float>() >= 7.0f);
  // Every complete-named checkpoint file in the directory reads (no partial file under its name).
  for (const auto& entry : fs::directory_iterator(dir.path)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 16 && name.substr(name.size() - 16) == ".eaglecheckpoint") {
      const std::string prefix = (dir.path / name.substr(0, name.size() - 16)).string();
      CHECK_NOTHROW(checkpoint.restore(prefix));
    }
  }
}
