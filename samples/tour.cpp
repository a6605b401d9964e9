// A guided tour of the five seed tutorials (samples/README.md; issue 3), one step per example, in
// the seeds' order where eagle can run it: which devices there are, is_built_with_cuda, the
// placement log, manual and soft placement, visible devices, memory limits and out-of-memory,
// virtual GPUs and multi-GPU towers. Each step prints its title, the C++ it runs and what that
// prints. Between steps the tour waits for Enter when stdin is a terminal; otherwise (a pipe,
// /dev/null, ctest) it runs straight through.
//
// The device configuration of a process is frozen when the runtime starts (at the first op,
// tensor, device scope or list_logical_devices), so everything the seeds configure (visible
// devices, a GPU split into two logical GPUs with a memory limit) is set up in steps 1-2, before
// anything runs, and step 3 shows the error for a change that comes too late.
//
// On a machine without a CUDA GPU the tour runs on four simulated 16 GiB GPUs (docs/guide.md,
// "Simulated GPUs"), like the four-GPU machine of seed 002 §六.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <eagle/eagle.hpp>

#include "sample_support.hpp"

namespace {

using eagle::config::LogicalDeviceConfiguration;
using eagle::config::PhysicalDevice;

// ---- Presentation -------------------------------------------------------------------------------

const bool kInteractive = isatty(STDIN_FILENO) != 0;

void title(int number, int count, std::string_view text, std::string_view seeds) {
  const std::string line = fmt::format("Step {} of {}: {}", number, count, text);
  fmt::print("\n{}\n{}\n({})\n\n", line, std::string(line.size(), '='), seeds);
}

// Explanations: plain text.
void say(std::string_view text) { fmt::print("{}\n", text); }

// Code as the REPL of the seeds shows it: ">>> " starts a statement, "... " continues one.
void code(std::string_view text) {
  while (!text.empty()) {
    const auto end = text.find('\n');
    const auto line = text.substr(0, end);
    const bool continuation = !line.empty() && (line[0] == ' ' || line[0] == '}');
    fmt::print("{}{}\n", continuation ? "... " : ">>> ", line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

std::string_view error_name(const eagle::Error& e) {
  switch (e.code()) {
    case eagle::ErrorCode::kInvalidArgument:
      return "InvalidArgumentError";
    case eagle::ErrorCode::kNotFound:
      return "NotFoundError";
    case eagle::ErrorCode::kResourceExhausted:
      return "ResourceExhaustedError";
    case eagle::ErrorCode::kFailedPrecondition:
      return "FailedPreconditionError";
    case eagle::ErrorCode::kUnimplemented:
      return "UnimplementedError";
    case eagle::ErrorCode::kInternal:
      return "InternalError";
  }
  return "Error";
}

void print_error(const eagle::Error& e) { fmt::print("{}: {}\n", error_name(e), e.what()); }

// False when the user asked to stop.
bool wait_for_enter() {
  if (!kInteractive) return true;
  fmt::print("\n[Enter: next step, q then Enter: quit] ");
  std::fflush(stdout);
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  return answer != "q" && answer != "Q";
}

// ---- The steps ----------------------------------------------------------------------------------

struct Tour {
  std::vector<PhysicalDevice> gpus;  // physical GPUs
  std::size_t logical_gpus = 0;      // after step 3
};

void devices_step(Tour& tour) {
  say("TensorFlow names devices '/CPU:0', '/GPU:0' (short) and\n"
      "'/job:localhost/replica:0/task:0/device:GPU:0' (full); eagle does the same. First, which\n"
      "physical devices are there? (On a machine without a CUDA GPU this tour asked for four\n"
      "simulated ones, before anything else.)\n");
  code(R"(eagle::config::simulate_gpus_when_absent(4);  // no effect when a CUDA GPU exists
eagle::config::list_physical_devices())");
  eagle_samples::print_devices("PhysicalDevice", eagle::config::list_physical_devices());
  code(R"(for (const auto& d : eagle::config::list_physical_devices())
  fmt::print("{}: {}\n", d.name, eagle::config::get_device_details(d).device_name);)");
  for (const auto& d : eagle::config::list_physical_devices()) {
    fmt::print("{}: {}\n", d.name, eagle::config::get_device_details(d).device_name);
  }

  say("\nSeed 004 asks \"is my TensorFlow the GPU build or the CPU build?\". Two different\n"
      "questions: is_built_with_cuda() says whether this build has the CUDA backend; whether a\n"
      "GPU is there to use is list_physical_devices(\"GPU\"), and whether ops really run on it,\n"
      "the placement log (step 4).\n");
  code("eagle::is_built_with_cuda()");
  fmt::print("{}\n", eagle::is_built_with_cuda());
  code(R"(eagle::config::list_physical_devices("GPU").size())");
  fmt::print("{}\n", tour.gpus.size());
  if (tour.gpus.empty()) {
    say("So: no GPU at all; everything below runs on the CPU.");
    return;
  }
  const auto details = eagle::config::get_device_details(tour.gpus[0]);
  const char* plural = tour.gpus.size() == 1 ? "" : "s";
  if (details.device_name == "Simulated GPU") {
    fmt::print(
        "So: running on {} simulated GPU{} (no CUDA GPU found). They count memory and\n"
        "place ops as real cards would; the CPU does their arithmetic.\n",
        tour.gpus.size(), plural);
  } else {
    fmt::print("So: running on {} CUDA GPU{}: {}\n", tour.gpus.size(), plural, details.device_name);
  }
  if (!eagle::is_built_with_cuda()) {
    say("(A build without CUDA that has GPUs: the two questions really are different.)");
  }
}

void configure_step(Tour& tour) {
  say("The configuration of the devices must come before the runtime starts: at the first op,\n"
      "tensor, device scope or list_logical_devices() it is frozen for the life of the process.\n"
      "So the tour sets up now what later steps show:\n"
      "- hide physical GPU:1, as CUDA_VISIBLE_DEVICES=0,2,3 does in seed 004 (seed 003 does it\n"
      "  with tf.config.set_visible_devices);\n"
      "- split physical GPU:0 into two logical GPUs of 1024 MiB each (seed 003, \"使用单个 GPU\n"
      "  模拟多个 GPU\"): a memory limit and virtual GPUs at once.\n");
  if (tour.gpus.empty()) {
    say("(No GPU here: nothing to configure.)");
    return;
  }
  code(R"(auto gpus = eagle::config::list_physical_devices("GPU");
if (gpus.size() >= 2) {
  std::vector<eagle::config::PhysicalDevice> visible = gpus;
  visible.erase(visible.begin() + 1);  // all but GPU:1
  eagle::config::set_visible_devices(visible, "GPU");
}
eagle::config::set_logical_device_configuration(
    gpus[0], {eagle::config::LogicalDeviceConfiguration{1024},
              eagle::config::LogicalDeviceConfiguration{1024}});
eagle::config::get_visible_devices("GPU"))");
  const auto& gpus = tour.gpus;
  if (gpus.size() >= 2) {
    std::vector<PhysicalDevice> visible = gpus;
    visible.erase(visible.begin() + 1);
    eagle::config::set_visible_devices(visible, "GPU");
  }
  eagle::config::set_logical_device_configuration(
      gpus[0], {LogicalDeviceConfiguration{1024}, LogicalDeviceConfiguration{1024}});
  eagle_samples::print_devices("PhysicalDevice", eagle::config::get_visible_devices("GPU"));

  say("\nMemory growth (seed 003's other way to share a GPU, and allow_growth in seeds 000, 002\n"
      "and 004) cannot be combined with virtual GPUs on the same card, and all GPUs must agree\n"
      "on it, so this process uses memory limits; samples/memory_growth shows growth.\n");
  code("eagle::config::set_memory_growth(gpus[0], true);");
  try {
    eagle::config::set_memory_growth(gpus[0], true);
    say("(accepted)");
  } catch (const eagle::Error& e) {
    print_error(e);
  }
}

void logical_devices_step(Tour& tour) {
  say("list_logical_devices() starts the runtime. Logical GPU ids run over the visible\n"
      "physical GPUs in order, each one's logical devices in configuration order, so they need\n"
      "not match the physical ids.\n");
  code("eagle::config::list_logical_devices()");
  const auto logical = eagle::config::list_logical_devices();
  eagle_samples::print_devices("LogicalDevice", logical);
  tour.logical_gpus = eagle::config::list_logical_devices("GPU").size();

  say("\nWhich card each logical GPU is on, and its memory limit:");
  std::size_t id = 0;
  for (const auto& gpu : eagle::config::get_visible_devices("GPU")) {
    const auto split = eagle::config::get_logical_device_configuration(gpu);
    const std::size_t count = split ? split->size() : 1;
    for (std::size_t i = 0; i < count; ++i, ++id) {
      const auto name = fmt::format("/device:GPU:{}", id);
      fmt::print("{} -> {}, limit {}\n", name, gpu.name,
                 eagle_samples::human(eagle::config::get_memory_info(name).limit));
    }
  }

  say("\nFrom now on the configuration is frozen: setting what is already set is a no-op,\n"
      "anything else an error. To change it, start the process again.\n");
  code(R"(eagle::config::set_visible_devices({}, "GPU");  // no GPU, seed 003's first example)");
  try {
    eagle::config::set_visible_devices(std::vector<PhysicalDevice>{}, "GPU");
    say("(no error: there was no GPU to hide)");
  } catch (const eagle::Error& e) {
    print_error(e);
  }
}

void add_step(Tour&) {
  say("Seed 000 (§9.1) and seed 001 add two vectors with log_device_placement. eagle runs\n"
      "eagerly, like TensorFlow 2: the log is a process-wide switch, and each op prints one line\n"
      "as it runs. Constants are data, not ops, and print nothing.\n");
  code(R"(eagle::debugging::set_log_device_placement(true);
auto a = eagle::constant({1.0, 2.0, 3.0}, eagle::Shape{3});
auto b = eagle::constant({1.0, 2.0, 3.0}, eagle::Shape{3});
auto c = a + b;)");
  eagle::debugging::set_log_device_placement(true);
  const auto a = eagle::constant({1.0, 2.0, 3.0}, eagle::Shape{3});
  const auto b = eagle::constant({1.0, 2.0, 3.0}, eagle::Shape{3});
  const auto c = a + b;
  code("c");
  fmt::print("{}\n", c);
  say("\nThe seeds' output for a GPU machine: \"add: (Add): .../device:GPU:0\" and [2. 4. 6.].");
}

void matmul_step(Tour&) {
  say("Seed 002 §二, seed 003 \"记录使用设备\" and seed 004: where do tensors and ops go? With no\n"
      "scope a constant lives on CPU:0, and an op with a GPU kernel (MatMul has one) runs on\n"
      "GPU:0; its inputs are copied there. A log line naming a GPU means the GPU is in use\n"
      "(seed 004's test).\n");
  code(R"(auto a = eagle::constant({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
a.device())");
  const auto a = eagle::constant({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  fmt::print("'{}'\n", a.device());
  code(R"(auto b = eagle::constant({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
b.device())");
  const auto b = eagle::constant({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
  fmt::print("'{}'\n", b.device());
  code("auto c = eagle::matmul(a, b);");
  const auto c = eagle::matmul(a, b);
  code("c.device()");
  fmt::print("'{}'\n", c.device());
  code("fmt::print(\"{}\\n\", eagle::format_values(c));");
  fmt::print("{}\n", eagle::format_values(c));
}

void manual_step(Tour&) {
  say("Seed 002 §三/§五, seed 003 \"手动指定设备\", seed 001: a device scope places everything\n"
      "inside it, constants and ops. eagle::device() returns a guard; the scope ends with it.\n");
  code(R"({
  auto scope = eagle::device("/CPU:0");
  auto a = eagle::constant({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  auto b = eagle::constant({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
  auto c = eagle::matmul(a, b);
})");
  {
    auto scope = eagle::device("/CPU:0");
    const auto a = eagle::constant({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
    const auto b = eagle::constant({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
    const auto c = eagle::matmul(a, b);
  }
  say("");
  code(R"({
  auto scope = eagle::device("/GPU:1");
  auto a = eagle::constant({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  auto b = eagle::constant({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
  auto c = eagle::matmul(a, b);
  fmt::print("a: {}\nc: {}\n", a.device(), c.device());
})");
  {
    auto scope = eagle::device("/GPU:1");
    const auto a = eagle::constant({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
    const auto b = eagle::constant({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
    const auto c = eagle::matmul(a, b);
    fmt::print("a: {}\nc: {}\n", a.device(), c.device());
  }
}

void soft_step(Tour& tour) {
  const auto missing = fmt::format("/GPU:{}", tour.logical_gpus);
  fmt::print(
      "Seed 002 §五 and seed 003: a device that does not exist. This process has {} logical\n"
      "GPU{}, so ask for {}. With soft placement off that is an error; with it on (the default\n"
      "in TensorFlow 2 and in eagle) the op goes to a device that exists.\n\n",
      tour.logical_gpus, tour.logical_gpus == 1 ? "" : "s", missing);
  const auto body = fmt::format(R"(  auto scope = eagle::device("{}");
  auto a = eagle::constant({{{{1.0, 2.0, 3.0}}, {{4.0, 5.0, 6.0}}}});
  auto b = eagle::constant({{{{1.0, 2.0}}, {{3.0, 4.0}}, {{5.0, 6.0}}}});
  c = eagle::matmul(a, b);
}})",
                                missing);
  const auto tower = [&] {
    auto scope = eagle::device(missing);
    const auto a = eagle::constant({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
    const auto b = eagle::constant({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
    return eagle::matmul(a, b);
  };
  eagle::Tensor c;
  code("eagle::Tensor c;\neagle::config::set_soft_device_placement(false);\n{\n" + body);
  eagle::config::set_soft_device_placement(false);
  try {
    c = tower();
    say("(no error: that device exists here)");
  } catch (const eagle::Error& e) {
    print_error(e);
  }
  say("");
  code("eagle::config::set_soft_device_placement(true);\n{\n" + body);
  eagle::config::set_soft_device_placement(true);
  c = tower();
  code("fmt::print(\"{}\\n\", eagle::format_values(c));");
  fmt::print("{}\n", eagle::format_values(c));
}

void memory_step(Tour& tour) {
  say("Seed 003 \"限制GPU使用和显存增长\" (and per_process_gpu_memory_fraction in seeds 000, 002\n"
      "§四 and 004): by default a GPU allocator takes nearly all of its card at its first\n"
      "allocation, to limit fragmentation. GPU:0 here is a logical GPU limited to 1024 MiB\n"
      "(step 2): it reserved all of it with its first tensor, back in step 4.\n");
  if (tour.logical_gpus == 0) {
    say("(No GPU here: the CPU has no such limits.)");
    return;
  }
  eagle_samples::print_memory_info("GPU:0", "  i.e. ");
  say("\nA tensor larger than the limit: 512 x 1024 x 1024 floats are 2 GiB.\n");
  code(R"(try {
  auto scope = eagle::device("/GPU:0");
  auto big = eagle::zeros({512, 1024, 1024});
} catch (const eagle::ResourceExhaustedError& e) {
  fmt::print("ResourceExhaustedError: {}\n", e.what());
})");
  try {
    auto scope = eagle::device("/GPU:0");
    const auto big = eagle::zeros({512, 1024, 1024});
    fmt::print("(allocated {} on {}: no limit here)\n", big.shape().to_string(), big.device());
  } catch (const eagle::ResourceExhaustedError& e) {
    fmt::print("ResourceExhaustedError: {}\n", e.what());
  }
  say("\nThe program goes on, and GPU:0 keeps working:\n");
  code(R"({
  auto scope = eagle::device("/GPU:0");
  auto x = eagle::ones({256, 1024});  // 1 MiB
  fmt::print("{}\n", eagle::format_values(eagle::reduce_sum(x)));
})");
  {
    auto scope = eagle::device("/GPU:0");
    const auto x = eagle::ones({256, 1024});
    fmt::print("{}\n", eagle::format_values(eagle::reduce_sum(x)));
  }
  eagle_samples::print_memory_info("GPU:0", "  i.e. ");
}

// The towers of seeds 002 and 003, one per device: shows the loop, then runs it.
std::vector<eagle::Tensor> towers(const char* first, const char* second) {
  code(fmt::format(R"(std::vector<eagle::Tensor> c;
for (const char* d : {{"{}", "{}"}}) {{
  auto scope = eagle::device(d);
  auto a = eagle::constant({{1.0, 2.0, 3.0, 4.0, 5.0, 6.0}}, eagle::Shape{{2, 3}});
  auto b = eagle::constant({{1.0, 2.0, 3.0, 4.0, 5.0, 6.0}}, eagle::Shape{{3, 2}});
  c.push_back(eagle::matmul(a, b));
}})",
                   first, second));
  std::vector<eagle::Tensor> c;
  for (const char* d : {first, second}) c.push_back(eagle_samples::matmul_tower(d).c);
  return c;
}

void virtual_step(Tour&) {
  say("Seed 003 \"使用单个 GPU 模拟多个 GPU\": logical GPU:0 and GPU:1 share physical GPU:0 (step\n"
      "2), yet each is a device of its own, with its own allocator and limit: multi-GPU code\n"
      "can be tried on one card. (The seed goes on with tf.distribute.MirroredStrategy, which is\n"
      "a later eagle milestone.)\n");
  const auto c = towers("/GPU:0", "/GPU:1");
  code(R"(for (const auto& t : c) fmt::print("{}\n", t);)");
  for (const auto& t : c) fmt::print("{}\n", t);
}

void towers_step(Tour& tour) {
  say("Seed 002 §六 \"使用多GPU\": a multi-tower model, one tower per GPU, the results summed on\n"
      "the CPU. The seed ran it on a machine with four GPUs, its towers on GPU:2 and GPU:3.");
  if (tour.logical_gpus >= 4) {
    say("Here logical GPU:2 and GPU:3 are two different physical cards (step 3).\n");
  } else {
    fmt::print(
        "This process has only {} logical GPU{}: soft placement (step 7) runs a tower\n"
        "whose GPU is missing on the default device.\n\n",
        tour.logical_gpus, tour.logical_gpus == 1 ? "" : "s");
  }
  const auto c = towers("/device:GPU:2", "/device:GPU:3");
  code(R"(auto sum = eagle::with_device("/cpu:0", [&] { return eagle::add_n(c); });)");
  const auto sum = eagle::with_device("/cpu:0", [&] { return eagle::add_n(c); });
  code("fmt::print(\"{}\\n\", eagle::format_values(sum));");
  fmt::print("{}\n", eagle::format_values(sum));
  say("\n(The seed shows the same values in older NumPy spacing: [[  44.   56.] [  98.  128.]].)");
}

}  // namespace

int main() {
  // Before any other eagle call: without a CUDA GPU, pretend there are four.
  eagle::config::simulate_gpus_when_absent(4);
  // Placement lines go to stdout, in order with everything else.
  eagle::debugging::set_log_sink([](eagle::debugging::LogLevel level, std::string_view line) {
    fmt::print("{}{}\n", level == eagle::debugging::LogLevel::kWarning ? "WARNING:eagle:" : "",
               line);
  });

  Tour tour;
  tour.gpus = eagle::config::list_physical_devices("GPU");

  struct Step {
    const char* title;
    const char* seeds;
    void (*run)(Tour&);
  };
  const std::vector<Step> steps = {
      {"Which devices are there?", "seed 003 准备, seed 004 检测是不是在使用 GPU", devices_step},
      {"Configure the devices before first use", "seeds 003, 000 and 004", configure_step},
      {"Logical devices, and the configuration freezes", "seed 003", logical_devices_step},
      {"a + b, with the placement log", "seed 000 §9.1, seed 001", add_step},
      {"Automatic placement of a matmul", "seed 002 §二, seed 003, seed 004", matmul_step},
      {"Manual placement with device scopes", "seed 002 §三, seed 003, seed 001", manual_step},
      {"Soft placement", "seed 002 §五, seed 003", soft_step},
      {"A memory limit, and running out of memory", "seed 003, seeds 000, 002 §四, 004",
       memory_step},
      {"One GPU as two logical GPUs", "seed 003 使用单个 GPU 模拟多个 GPU", virtual_step},
      {"Multi-GPU towers", "seed 002 §六 使用多GPU", towers_step},
  };

  fmt::print("eagle: a tour of the GPU tutorials (seeds 000-004)\n");
  if (kInteractive) fmt::print("Press Enter after each step to go on.\n");
  const int count = static_cast<int>(steps.size());
  for (int i = 0; i < count; ++i) {
    title(i + 1, count, steps[i].title, steps[i].seeds);
    try {
      steps[i].run(tour);
    } catch (const eagle::Error& e) {
      fmt::print("unexpected ");
      print_error(e);
    }
    if (i + 1 < count && !wait_for_enter()) return 0;
  }
  fmt::print(
      "\nEnd of the tour. Each example also stands alone in samples/: log_device_placement,\n"
      "manual_placement, soft_placement, visible_devices, memory_growth, memory_limit,\n"
      "virtual_gpus and multi_gpu_towers.\n");
  return 0;
}
