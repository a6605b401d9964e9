#include "cpu/onednn/onednn_common.hpp"

#include <fmt/format.h>

#include "eagle/errors.hpp"

namespace eagle::cpu::onednn {

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

dnnl::memory wrap(const dnnl::memory::desc& desc, const void* data) {
  return dnnl::memory(desc, engine(), const_cast<void*>(data));
}

dnnl::memory scratchpad_of(const dnnl::memory::desc& desc) {
  thread_local GrowingBuffer scratchpad;
  return wrap(desc, scratchpad.get(desc.get_size()));
}

void execute(const dnnl::primitive& primitive, const std::string& what, dnnl::stream& stream,
             const std::unordered_map<int, dnnl::memory>& args) {
  try {
    primitive.execute(stream, args);
  } catch (const dnnl::error& error) {
    throw InternalError(fmt::format("oneDNN ({}) failed: {}", what, error.what()));
  }
}

void run_primitive(const dnnl::primitive& primitive, const std::string& what, int threads,
                   const dnnl::memory::desc& scratchpad,
                   std::unordered_map<int, dnnl::memory> args) {
  omp_set_num_threads(threads);
  args.emplace(DNNL_ARG_SCRATCHPAD, scratchpad_of(scratchpad));
  dnnl::stream stream(engine());
  execute(primitive, what, stream, args);
  stream.wait();
}

}  // namespace eagle::cpu::onednn
