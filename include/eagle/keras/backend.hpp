// Keras's process-wide state: automatic layer and model names, where printing goes, and the
// clock that the progress bar reads (replaceable so tests print fixed times).
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>

namespace eagle::keras::backend {

// Keras's automatic name for an object of a class: "dense", then "dense_1", "dense_2", ... (one
// counter per base name, for the whole process, as Keras 2's unique_object_name).
std::string unique_object_name(const std::string& base);
// "MaxPooling2D" -> "max_pooling2d", "Dense" -> "dense" (Keras's to_snake_case).
std::string to_snake_case(const std::string& class_name);
// Forgets every automatic name counter, as keras.backend.clear_session(): the next Dense is
// "dense" again.
void clear_session();

}  // namespace eagle::keras::backend

namespace eagle::keras::io {

// Where summary(), fit(), evaluate() and predict() print (default std::cout). The stream must
// outlive its use; set_print_stream(std::cout) restores the default.
void set_print_stream(std::ostream& stream);
std::ostream& print_stream();

// Whether the progress bar redraws itself in place ('\r', Keras's dynamic display) or prints
// only each bar's final line. Default (std::nullopt): in place when printing to std::cout and
// stdout is a terminal, else final lines only, so logs and pipes get one line per bar.
void set_dynamic_display(std::optional<bool> dynamic);
bool dynamic_display();

// Seconds on a monotonic clock, read by the progress bar for its times. Replaceable so that
// tests get fixed figures; an empty function restores the steady clock.
using Clock = std::function<double()>;
void set_clock(Clock clock);
double now();

}  // namespace eagle::keras::io
