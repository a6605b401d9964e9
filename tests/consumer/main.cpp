// Built against the installed package: proves headers, library and dependencies are complete.
#include <eagle/eagle.hpp>
#include <eagle/xtensor.hpp>

int main() {
  const auto a = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{2, 3});
  const auto b = eagle::constant({1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, eagle::Shape{3, 2});
  const auto c = eagle::matmul(a, b);
  const auto x = eagle::to_xarray<float>(c);
  fmt::print("{}\n", c);
  return (x(0, 0) == 22 && x(0, 1) == 28 && x(1, 0) == 49 && x(1, 1) == 64) ? 0 : 1;
}
