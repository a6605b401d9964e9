// Tiny timing harness shared by the benchmark programs: steady_clock, warm-up, N repetitions,
// median/min/max, one JSON line per case, a short table (the rules: docs/performance.md,
// "Benchmark cases and targets").
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <sched.h>

#include <thread>

namespace bench {

// ---- Command line ------------------------------------------------------------------------------
struct Options {
  bool quick = false;  // fewer repetitions and sizes: finishes in seconds
  int reps = 0;        // 0: the program's default (30 in full mode, 10 in quick mode)
  int warmup = 0;      // 0: the program's default
  int threads = 0;     // 0: the CPUs this process may run on (its affinity mask)
  // Run only some cases (for profiling): those whose name contains `filter`, or the one case
  // whose "<case>/<size>" equals it.
  std::string filter;
  // The device the program's work runs on, for the programs that take one (empty: their own).
  std::string device;

  bool selected(const std::string& name, long long size) const {
    return filter.empty() || name.find(filter) != std::string::npos ||
           name + "/" + std::to_string(size) == filter;
  }

  int reps_or(int full, int quick_reps) const {
    return reps > 0 ? reps : quick ? quick_reps : full;
  }
  int warmup_or(int full, int quick_warmup) const {
    return warmup > 0 ? warmup : quick ? quick_warmup : full;
  }
  // The thread count to run (and report) with: --threads, or else the CPUs available.
  int threads_or_available() const {
    if (threads > 0) return threads;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) {
      return CPU_COUNT(&set);
    }
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
};

inline void print_usage(const char* prog) {
  std::printf(
      "usage: %s [--quick] [--reps N] [--warmup N] [--threads N] [--filter TEXT]\n"
      "  --quick     fewer repetitions (and the largest sizes skipped where stated)\n"
      "  --reps N    timed repetitions per case (default 30; 10 with --quick)\n"
      "  --warmup N  untimed repetitions before timing (default 2; 1 with --quick)\n"
      "  --threads N threads per op (default: the CPUs this process may run on)\n"
      "  --filter T  only cases whose name contains T, or whose \"<case>/<size>\" is T\n"
      "  --device D  the device to run on, where the program takes one (e.g. /GPU:0)\n",
      prog);
}

inline Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next_int = [&](const char* name) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", name);
        std::exit(2);
      }
      return std::atoi(argv[++i]);
    };
    if (a == "--quick") {
      o.quick = true;
    } else if (a == "--reps") {
      o.reps = next_int("--reps");
    } else if (a == "--warmup") {
      o.warmup = next_int("--warmup");
    } else if (a == "--threads") {
      o.threads = next_int("--threads");
    } else if (a == "--filter") {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "--filter needs a value\n");
        std::exit(2);
      }
      o.filter = argv[++i];
    } else if (a == "--device") {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "--device needs a value\n");
        std::exit(2);
      }
      o.device = argv[++i];
    } else if (a == "--help" || a == "-h") {
      print_usage(argv[0]);
      std::exit(0);
    } else {
      std::fprintf(stderr, "unknown argument: %s\n", a.c_str());
      print_usage(argv[0]);
      std::exit(2);
    }
  }
  // OpenBLAS (which libeagle links) starts its worker threads when it loads, and an idle worker
  // spins on sched_yield for 2^28 TSC cycles (about 0.1 s) before it parks: a timed loop in that
  // window shares its cores with them (measured: seed conv1's ops on 2 threads ran at 1-thread
  // speed, and at 2-thread speed with OPENBLAS_THREAD_TIMEOUT=4). Wait them out before timing.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  return o;
}

// ---- Timing ------------------------------------------------------------------------------------
using Clock = std::chrono::steady_clock;

struct Stats {
  double median_us = 0;
  double min_us = 0;
  double max_us = 0;
  int reps = 0;
};

inline Stats summarize(std::vector<double> us) {
  Stats s;
  s.reps = static_cast<int>(us.size());
  if (us.empty()) return s;
  std::sort(us.begin(), us.end());
  const std::size_t n = us.size();
  s.median_us = n % 2 ? us[n / 2] : 0.5 * (us[n / 2 - 1] + us[n / 2]);
  s.min_us = us.front();
  s.max_us = us.back();
  return s;
}

template <class F>
double time_once_us(F&& f) {
  const auto t0 = Clock::now();
  f();
  const auto t1 = Clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count();
}

// Runs f `warmup` times untimed, then `reps` timed times.
template <class F>
Stats measure(F&& f, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) us.push_back(time_once_us(f));
  return summarize(std::move(us));
}

// Note [OpenBLAS's spinning threads]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// After a threaded call, OpenBLAS's (pthreads) workers spin for 2^OPENBLAS_THREAD_TIMEOUT TSC
// ticks (2^28 by default: about 0.1 s) before they sleep, on the cores that oneDNN's OpenMP
// team then needs. Timed interleaved with cblas_sgemm, eagle's float32 products (oneDNN's
// sgemm) ran at half speed whenever a repetition began inside that window: the matmul 1024 row
// was bimodal, 8.5 or 4.6 ms (2026-11-26; with OPENBLAS_THREAD_TIMEOUT=4 every repetition took
// 4.4-4.6 ms). So the GEMM benchmarks time OpenBLAS in a phase of its own after the oneDNN ones,
// and let its threads fall asleep (let_openblas_threads_sleep) before the next oneDNN phase.
inline void let_openblas_threads_sleep() {
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // 2^28 ticks of a TSC >= 0.9 GHz
}

// Side-by-side implementations: each repetition runs every one once, in turn, so slow drift
// on a shared machine (other processes, frequency) hits all of them alike.
inline std::vector<Stats> measure_interleaved(const std::vector<std::function<void()>>& fns,
                                              int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) {
    for (const auto& f : fns) f();
  }
  std::vector<std::vector<double>> us(fns.size());
  for (auto& v : us) v.reserve(static_cast<std::size_t>(reps));
  for (int r = 0; r < reps; ++r) {
    for (std::size_t k = 0; k < fns.size(); ++k) us[k].push_back(time_once_us(fns[k]));
  }
  std::vector<Stats> out;
  for (auto& v : us) out.push_back(summarize(std::move(v)));
  return out;
}

// Keeps the compiler from dropping a computation whose result is otherwise unused.
template <class T>
inline void do_not_optimize(T const& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}
inline void clobber_memory() { asm volatile("" : : : "memory"); }

// ---- Output ------------------------------------------------------------------------------------
// One JSON object, fields in insertion order. Strings are escaped minimally (quotes, backslash).
// Text already in JSON form (an array of samples, say), written as it is.
struct RawJson {
  std::string text;
};

class Record {
 public:
  using Value = std::variant<std::string, double, long long, bool, RawJson>;

  Record& set(const std::string& key, const std::string& v) { return put(key, v); }
  Record& set(const std::string& key, const char* v) { return put(key, std::string(v)); }
  Record& set(const std::string& key, double v) { return put(key, v); }
  Record& set(const std::string& key, int v) { return put(key, static_cast<long long>(v)); }
  Record& set(const std::string& key, long v) { return put(key, static_cast<long long>(v)); }
  Record& set(const std::string& key, long long v) { return put(key, v); }
  Record& set(const std::string& key, bool v) { return put(key, v); }
  Record& set(const std::string& key, RawJson v) { return put(key, std::move(v)); }
  Record& set(const Stats& s) {
    set("median_us", s.median_us);
    set("min_us", s.min_us);
    set("max_us", s.max_us);
    return set("reps", s.reps);
  }

  const Value* get(const std::string& key) const {
    for (const auto& [k, v] : fields_) {
      if (k == key) return &v;
    }
    return nullptr;
  }
  double number(const std::string& key) const {
    const Value* v = get(key);
    if (!v) return NAN;
    if (auto d = std::get_if<double>(v)) return *d;
    if (auto i = std::get_if<long long>(v)) return static_cast<double>(*i);
    return NAN;
  }
  std::string text(const std::string& key) const {
    const Value* v = get(key);
    if (!v) return "";
    if (auto s = std::get_if<std::string>(v)) return *s;
    return format_value(*v);
  }

  std::string json() const {
    std::string out = "{";
    bool first = true;
    for (const auto& [k, v] : fields_) {
      if (!first) out += ", ";
      first = false;
      out += fmt::format("\"{}\": {}", escape(k), format_value(v));
    }
    return out + "}";
  }

 private:
  Record& put(const std::string& key, Value v) {
    for (auto& [k, old] : fields_) {
      if (k == key) {
        old = std::move(v);
        return *this;
      }
    }
    fields_.emplace_back(key, std::move(v));
    return *this;
  }
  static std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out;
  }
  static std::string format_value(const Value& v) {
    if (auto s = std::get_if<std::string>(&v)) return "\"" + escape(*s) + "\"";
    if (auto d = std::get_if<double>(&v)) {
      if (!std::isfinite(*d)) return "null";
      return fmt::format("{:.6g}", *d);
    }
    if (auto i = std::get_if<long long>(&v)) return fmt::format("{}", *i);
    if (auto raw = std::get_if<RawJson>(&v)) return raw->text;
    return std::get<bool>(v) ? "true" : "false";
  }

  std::vector<std::pair<std::string, Value>> fields_;
};

// Prints each record as a JSON line at once (so a crash later keeps earlier results) and keeps
// it for the table printed at the end.
class Reporter {
 public:
  const Record& emit(Record r) {
    std::printf("%s\n", r.json().c_str());
    std::fflush(stdout);
    records_.push_back(std::move(r));
    return records_.back();
  }
  const std::vector<Record>& records() const { return records_; }

  // A fixed-width table of the given columns (header, key, printf-style width and precision).
  struct Column {
    std::string header;
    std::string key;
    int width = 10;
    int precision = 3;
  };
  void table(const std::string& title, const std::vector<Column>& cols) const {
    std::printf("\n%s\n", title.c_str());
    std::string line;
    for (const auto& c : cols) line += fmt::format("{:>{}} ", c.header, c.width);
    std::printf("%s\n", line.c_str());
    for (const auto& r : records_) {
      line.clear();
      for (const auto& c : cols) {
        const Record::Value* v = r.get(c.key);
        std::string cell;
        if (!v) {
          cell = "-";
        } else if (auto d = std::get_if<double>(v)) {
          cell = fmt::format("{:.{}f}", *d, c.precision);
        } else {
          cell = r.text(c.key);
        }
        line += fmt::format("{:>{}} ", cell, c.width);
      }
      std::printf("%s\n", line.c_str());
    }
    std::fflush(stdout);
  }

 private:
  std::vector<Record> records_;
};

// Relative error of `got` against `want`: ||got - want||_2 / ||want||_2 (absolute when want = 0).
template <class A, class B>
double relative_error(const A& got, const B& want) {
  double num = 0, den = 0;
  const std::size_t n = std::min<std::size_t>(got.size(), want.size());
  for (std::size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(got[i]) - static_cast<double>(want[i]);
    num += d * d;
    den += static_cast<double>(want[i]) * static_cast<double>(want[i]);
  }
  if (got.size() != want.size()) return INFINITY;
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

// Exits non-zero (after saying why) when a benchmark's result disagrees with its reference:
// a fast wrong answer is not a result.
inline void check(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "CHECK FAILED: %s\n", what.c_str());
  std::exit(1);
}

}  // namespace bench
