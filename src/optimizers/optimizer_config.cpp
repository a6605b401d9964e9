// Keras's optimizer configurations: get_config of every optimizer, and keras.optimizers'
// serialize, deserialize and get (what a .keras file's compile_config holds).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/snake_case.hpp"
#include "eagle/errors.hpp"
#include "eagle/io/json.hpp"
#include "eagle/optimizers.hpp"
#include "runtime/flags.hpp"

namespace eagle::optimizers {
namespace {

using io::Json;

Json optional_number(const std::optional<double>& value) { return value ? Json(*value) : Json(); }

Json optional_integer(const std::optional<std::int64_t>& value) {
  return value ? Json(*value) : Json();
}

// Reads one optimizer's config, remembering the keys read so that the others can be refused.
class ConfigReader {
 public:
  ConfigReader(std::string class_name, const Json& config)
      : class_name_(std::move(class_name)), config_(config) {}

  const Json* take(const char* key) {
    used_.insert(key);
    const Json* value = config_.find(key);
    return value == nullptr || value->is_null() ? nullptr : value;
  }
  void number(const char* key, double& out) {
    if (const Json* v = take(key)) out = checked_number(key, *v);
  }
  void optional_number(const char* key, std::optional<double>& out) {
    if (const Json* v = take(key)) out = checked_number(key, *v);
  }
  void optional_integer(const char* key, std::optional<std::int64_t>& out) {
    if (const Json* v = take(key)) {
      if (!v->is_integer()) mistyped(key, "an integer", *v);
      out = v->as_integer();
    }
  }
  void flag(const char* key, bool& out) {
    if (const Json* v = take(key)) {
      if (!v->is_bool()) mistyped(key, "true or false", *v);
      out = v->as_bool();
    }
  }
  void learning_rate(LearningRate& out) {
    if (const Json* v = take("learning_rate")) {
      if (v->is_object()) {
        out = schedules::deserialize(*v);
      } else {
        out = checked_number("learning_rate", *v);
      }
    }
  }
  // The arguments every optimizer has (Keras's BaseOptimizer).
  template <class Options>
  void common(Options& options) {
    take("name");  // a label; eagle's optimizers keep their class's
    learning_rate(options.learning_rate);
    optional_number("weight_decay", options.base.weight_decay);
    optional_number("clipnorm", options.clip.clipnorm);
    optional_number("global_clipnorm", options.clip.global_clipnorm);
    optional_number("clipvalue", options.clip.clipvalue);
    flag("use_ema", options.base.use_ema);
    number("ema_momentum", options.base.ema_momentum);
    optional_integer("ema_overwrite_frequency", options.base.ema_overwrite_frequency);
    optional_integer("gradient_accumulation_steps", options.base.gradient_accumulation_steps);
    if (take("loss_scale_factor") != nullptr) {
      throw UnimplementedError(fmt::format(
          "{}: loss_scale_factor is not supported by eagle's optimizers (no loss scaling)",
          class_name_));
    }
  }
  // Keras passes the config to the constructor, which refuses an argument it does not take.
  void finish() const {
    for (const auto& [key, value] : config_.as_object()) {
      if (used_.count(key) == 0) {
        throw InvalidArgumentError(
            fmt::format("{}.__init__() got an unexpected keyword argument '{}'", class_name_, key));
      }
    }
  }

 private:
  double checked_number(const char* key, const Json& v) const {
    if (!v.is_number()) mistyped(key, "a number", v);
    return v.as_number();
  }
  [[noreturn]] void mistyped(const char* key, const char* what, const Json& v) const {
    throw InvalidArgumentError(fmt::format("{}'s configuration: '{}' must be {}, not {}",
                                           class_name_, key, what, v.type_name()));
  }

  std::string class_name_;
  const Json& config_;
  std::set<std::string> used_;
};

template <class O, class Options, class Fill>
std::shared_ptr<Optimizer> make(ConfigReader& reader, Fill fill) {
  Options options;
  reader.common(options);
  fill(options);
  reader.finish();
  return std::make_shared<O>(std::move(options));
}

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

Json Optimizer::get_config() const {
  Json learning_rate;
  if (learning_rate_.scheduled()) {
    std::optional<Json> schedule = schedules::serialize(learning_rate_.schedule());
    if (!schedule) {
      throw UnimplementedError(fmt::format(
          "The learning rate of optimizer '{}' is a function with no configuration: only the "
          "schedules of eagle::optimizers::schedules can be serialized (Keras: a "
          "LearningRateSchedule must implement get_config)",
          detail::to_snake_case(name_)));
    }
    learning_rate = std::move(*schedule);
  } else {
    runtime::UnloggedOps unlogged;
    learning_rate = static_cast<double>(learning_rate_variable_.read_value().item<float>());
  }
  return Json::object()
      .set("name", detail::to_snake_case(name_))
      .set("learning_rate", std::move(learning_rate))
      .set("weight_decay", optional_number(base_.weight_decay))
      .set("clipnorm", optional_number(clip_.clipnorm))
      .set("global_clipnorm", optional_number(clip_.global_clipnorm))
      .set("clipvalue", optional_number(clip_.clipvalue))
      .set("use_ema", base_.use_ema)
      .set("ema_momentum", base_.ema_momentum)
      .set("ema_overwrite_frequency", optional_integer(base_.ema_overwrite_frequency))
      .set("loss_scale_factor", nullptr)
      .set("gradient_accumulation_steps", optional_integer(base_.gradient_accumulation_steps));
}

Json SGD::get_config() const {
  return Optimizer::get_config()
      .set("momentum", options_.momentum)
      .set("nesterov", options_.nesterov);
}

Json Adam::get_config() const {
  return Optimizer::get_config()
      .set("beta_1", options_.beta_1)
      .set("beta_2", options_.beta_2)
      .set("epsilon", options_.epsilon)
      .set("amsgrad", options_.amsgrad);
}

Json RMSprop::get_config() const {
  return Optimizer::get_config()
      .set("rho", options_.rho)
      .set("momentum", options_.momentum)
      .set("epsilon", options_.epsilon)
      .set("centered", options_.centered);
}

Json Adagrad::get_config() const {
  return Optimizer::get_config()
      .set("initial_accumulator_value", options_.initial_accumulator_value)
      .set("epsilon", options_.epsilon);
}

Json Adamax::get_config() const {
  return Optimizer::get_config()
      .set("beta_1", options_.beta_1)
      .set("beta_2", options_.beta_2)
      .set("epsilon", options_.epsilon);
}

Json Nadam::get_config() const {
  return Optimizer::get_config()
      .set("beta_1", options_.beta_1)
      .set("beta_2", options_.beta_2)
      .set("epsilon", options_.epsilon);
}

Json Adadelta::get_config() const {
  return Optimizer::get_config().set("rho", options_.rho).set("epsilon", options_.epsilon);
}

Json Lion::get_config() const {
  return Optimizer::get_config().set("beta_1", options_.beta_1).set("beta_2", options_.beta_2);
}

Json Lamb::get_config() const {
  return Optimizer::get_config()
      .set("beta_1", options_.beta_1)
      .set("beta_2", options_.beta_2)
      .set("epsilon", options_.epsilon);
}

Json serialize(const Optimizer& optimizer) {
  return Json::object()
      .set("module", "keras.optimizers")
      .set("class_name", optimizer.name())
      .set("config", optimizer.get_config())
      .set("registered_name", nullptr);
}

std::shared_ptr<Optimizer> get(const std::string& name) {
  const std::string lower = lowercase(name);
  if (lower == "adam") return std::make_shared<Adam>();
  if (lower == "sgd") return std::make_shared<SGD>();
  if (lower == "rmsprop") return std::make_shared<RMSprop>();
  if (lower == "adagrad") return std::make_shared<Adagrad>();
  if (lower == "adamw") return std::make_shared<AdamW>();
  if (lower == "adamax") return std::make_shared<Adamax>();
  if (lower == "nadam") return std::make_shared<Nadam>();
  if (lower == "adadelta") return std::make_shared<Adadelta>();
  if (lower == "lion") return std::make_shared<Lion>();
  if (lower == "lamb") return std::make_shared<Lamb>();
  throw InvalidArgumentError(fmt::format(
      "Unknown optimizer: '{}'. Please ensure you are using a `keras.utils.custom_object_scope` "
      "and that this object is included in the scope. See "
      "https://www.tensorflow.org/guide/keras/save_and_serialize"
      "#registering_the_custom_object for details.",
      name));
}

std::shared_ptr<Optimizer> deserialize(const Json& serialized) {
  if (serialized.is_string()) return get(serialized.as_string());
  const Json* class_name = serialized.find("class_name");
  const Json* config = serialized.find("config");
  if (class_name == nullptr || !class_name->is_string() || config == nullptr ||
      !config->is_object()) {
    throw InvalidArgumentError(
        "An optimizer's configuration is a name or an object with \"class_name\" and \"config\"");
  }
  const std::string& cls = class_name->as_string();
  ConfigReader r(cls, *config);
  const std::string lower = lowercase(cls);
  if (lower == "sgd") {
    return make<SGD, SGDOptions>(r, [&](SGDOptions& o) {
      r.number("momentum", o.momentum);
      r.flag("nesterov", o.nesterov);
    });
  }
  if (lower == "adam") {
    return make<Adam, AdamOptions>(r, [&](AdamOptions& o) {
      r.number("beta_1", o.beta_1);
      r.number("beta_2", o.beta_2);
      r.number("epsilon", o.epsilon);
      r.flag("amsgrad", o.amsgrad);
    });
  }
  if (lower == "adamw") {
    // AdamW's weight_decay is its own argument (default 0.004), not the base's optional one.
    AdamWOptions o;
    r.common(o);
    if (o.base.weight_decay) o.weight_decay = *o.base.weight_decay;
    r.number("beta_1", o.beta_1);
    r.number("beta_2", o.beta_2);
    r.number("epsilon", o.epsilon);
    r.flag("amsgrad", o.amsgrad);
    r.finish();
    return std::make_shared<AdamW>(std::move(o));
  }
  if (lower == "rmsprop") {
    return make<RMSprop, RMSpropOptions>(r, [&](RMSpropOptions& o) {
      r.number("rho", o.rho);
      r.number("momentum", o.momentum);
      r.number("epsilon", o.epsilon);
      r.flag("centered", o.centered);
    });
  }
  if (lower == "adagrad") {
    return make<Adagrad, AdagradOptions>(r, [&](AdagradOptions& o) {
      r.number("initial_accumulator_value", o.initial_accumulator_value);
      r.number("epsilon", o.epsilon);
    });
  }
  if (lower == "adamax") {
    return make<Adamax, AdamaxOptions>(r, [&](AdamaxOptions& o) {
      r.number("beta_1", o.beta_1);
      r.number("beta_2", o.beta_2);
      r.number("epsilon", o.epsilon);
    });
  }
  if (lower == "nadam") {
    return make<Nadam, NadamOptions>(r, [&](NadamOptions& o) {
      r.number("beta_1", o.beta_1);
      r.number("beta_2", o.beta_2);
      r.number("epsilon", o.epsilon);
    });
  }
  if (lower == "adadelta") {
    return make<Adadelta, AdadeltaOptions>(r, [&](AdadeltaOptions& o) {
      r.number("rho", o.rho);
      r.number("epsilon", o.epsilon);
    });
  }
  if (lower == "lion") {
    return make<Lion, LionOptions>(r, [&](LionOptions& o) {
      r.number("beta_1", o.beta_1);
      r.number("beta_2", o.beta_2);
    });
  }
  if (lower == "lamb") {
    return make<Lamb, LambOptions>(r, [&](LambOptions& o) {
      r.number("beta_1", o.beta_1);
      r.number("beta_2", o.beta_2);
      r.number("epsilon", o.epsilon);
    });
  }
  // Keras's text (serialization_lib._retrieve_class_or_fn) for a class it cannot find.
  throw UnimplementedError(fmt::format(
      "Could not locate class '{}'. eagle's optimizers are SGD, Adam, AdamW, RMSprop, Adagrad, "
      "Adamax, Nadam, Adadelta, Lion and Lamb",
      cls));
}

}  // namespace eagle::optimizers
