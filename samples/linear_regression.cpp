// Fits y = 3x + 2 with a GradientTape and Keras's SGD: the loss falls, w and b land on 3 and 2.
// The first step runs with the placement log on, so each forward op, its gradient op (on the
// forward op's device) and the ResourceApplyGradientDescent updates are shown once.
#include <eagle/eagle.hpp>

int main() {
  eagle::config::simulate_gpus_when_absent(1);  // no CUDA GPU: one simulated GPU
                                                // (docs/guide.md, "Simulated GPUs")
  eagle::debugging::set_log_sink(
      [](eagle::debugging::LogLevel, std::string_view line) { fmt::print("  {}\n", line); });

  // 64 points on the line, with noise of a fixed seed.
  const eagle::Tensor x = eagle::random_uniform({64}, -1.0, 1.0, eagle::kFloat32, 1);
  const eagle::Tensor noise = eagle::random_normal({64}, 0.0, 0.05, eagle::kFloat32, 2);
  const eagle::Tensor y = x * 3.0f + 2.0f + noise;

  eagle::Variable w(eagle::constant(0.0f), {"w"});
  eagle::Variable b(eagle::constant(0.0f), {"b"});
  eagle::optimizers::SGD sgd({0.1});
  fmt::print("Fitting y = 3x + 2 on {}\n", w.device());

  for (int step = 0; step <= 200; ++step) {
    eagle::debugging::set_log_device_placement(step == 0);
    if (step == 0) fmt::print("The first step, op by op:\n");
    eagle::GradientTape tape;
    const eagle::Tensor loss = eagle::reduce_mean(eagle::square(x * w + b - y));
    const auto grads = tape.gradient(loss, {w, b});
    sgd.apply_gradients({{grads[0], w}, {grads[1], b}});
    if (step % 40 == 0) fmt::print("step {:3d}  loss {:.6f}\n", step, loss.item<float>());
  }
  eagle::debugging::set_log_device_placement(false);
  fmt::print("{}\n{}\n", w, b);
  const float wv = w.read_value().item<float>();
  const float bv = b.read_value().item<float>();
  fmt::print("Learned w = {:.3f}, b = {:.3f}\n", wv, bv);
  return std::abs(wv - 3.0f) < 0.05f && std::abs(bv - 2.0f) < 0.05f ? 0 : 1;
}
