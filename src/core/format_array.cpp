// Note [NumPy-compatible array printing]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// format_array() writes the text that NumPy 2.x (legacy=False) gives for `str(array)` under its
// default print options, so a tensor prints like `str(tensor.numpy())` does in Python.
//
// What is shown. An array of more than 1000 elements is summarized: along every axis longer than
// 6, only the first three and the last three entries are shown, with "..." in between.
//
// Where it goes. A sub-array nested k levels deep opens with '[' at column k and closes with ']'.
// Its first entry follows the bracket directly; each later entry starts at column k + 1 after as
// many line breaks as the entry has axes (rows of a matrix on consecutive lines, the matrices of
// a rank-3 array with a blank line between them). The innermost rows hold the elements separated
// by single spaces. A row of a rank-r array is broken before an element that would end past
// column 75 - r; continuation lines start at column r, trailing spaces are dropped at the break,
// and an element is never moved off a line that has none yet.
// "..." is placed like an element (inside a row) or like an entry (between sub-arrays).
//
// What each element looks like. All elements of one array get the same width, right-aligned:
//   * integers as decimal numbers; booleans as " True" / "False".
//   * floats in scientific notation when, over the finite non-zero magnitudes shown, the largest
//     is at least 1e3 (float16), 1e6 (float32) or 1e8 (float64), the smallest is below 1e-4, or
//     largest / smallest exceeds 1000; otherwise positional. NumPy evaluates these tests in the
//     array's dtype (NEP 50): 1e-4 and the quotient are rounded to float32 / float16 first, so
//     float32(1e-4) is not "below 1e-4".
//   * positional: every value gets the shortest digits that read back as the same value, but at
//     most 8 decimals (beyond that it is rounded to 8 and trailing zeros dropped); integral
//     values end in "."; spaces after the digits line the decimal points up.
//   * scientific: each value's shortest digits (at most 8 mantissa decimals, rounded like the
//     positional case) decide the mantissa decimal count, and every value is then printed with
//     the largest such count, rounded to it, even where that shows digits past its shortest form
//     ("3.0000001e-01" for float32 0.3 next to 1.2345678e-05). Exponents get as many digits as the
//     longest one, at least 2.
//   * nan, inf and -inf as those words (nan never shows a sign).
// "Shortest digits" are relative to the element's dtype: float16 values get the fewest digits
// that read back as the same float16. bfloat16 has no NumPy dtype; its values print as the
// float32 values they convert to.
//
// A rank-0 array prints its value alone, as str() of a NumPy scalar: shortest digits, positional
// ("3.0", "0.1") for zero and for magnitudes in [1e-4, cutoff), else scientific without padding
// ("1e+20", "1.5e-05"), where the cutoff is 1e3 for float16, 1e6 for float32 and 1e16 for float64.
//
// The float16/float32 cutoffs are NumPy >= 2.3's. NumPy <= 2.2 used 1e8 for all arrays and 1e16 for
// all scalars, so there float32 [1e6, 2e6] prints "[1000000. 2000000.]" where this prints (and
// NumPy 2.3+ prints) "[1.e+06 2.e+06]".
//
// Digits come from fmt, which rounds correctly: its shortest round-trip output (Dragonbox) for
// float32 and float64, and its exact fixed-precision output where 8 decimals cut a value short
// or padded scientific mantissas need more digits than the shortest ones. float16 has no fmt
// shortest mode, so 1 to 5 significant digits are tried in turn until one reads back as the same
// float16. The shortest digits are the ones nearest the value among those that read back; for a
// power of two that can be the decimal above the value even where the one below is nearer,
// because the gap to the lower neighbour is half the gap to the upper one (float16 0.015625
// prints "0.01563", not the tie-rounded "0.01562"), and those digits are kept when padding.
//
// NumPy computes its digits with Dragon4 instead. The two agree on every float16 value and on
// the several hundred thousand float32 / float64 values compared (random bit patterns, powers of
// two and their neighbours, ties at the 8th decimal), printed alone and in arrays.
//
// Not reproduced: print options other than the defaults (np.set_printoptions), the legacy
// modes, and dtypes eagle does not have (longdouble, complex, strings, ...).

#include "core/format_array.hpp"

#include "core/python_repr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "eagle/half.hpp"

namespace eagle::detail {
namespace {

// NumPy's default print options.
constexpr int kMaxDecimals = 8;                 // precision=8, floatmode='maxprec'
constexpr std::int64_t kSummarizeAbove = 1000;  // threshold
constexpr std::int64_t kEdgeItems = 3;
constexpr int kLineWidth = 75;

// ---------------------------------------------------------------------------------------------
// Decimal digits of a float.

enum class FloatKind { kHalf, kSingle, kDouble };

// A finite non-negative decimal d1.d2d3...dn * 10^exponent with no trailing zeros in `digits`
// and d1 != 0; zero is {"0", 0}.
struct Decimal {
  std::string digits = "0";
  int exponent = 0;

  int decimals_positional() const {
    return std::max(0, static_cast<int>(digits.size()) - 1 - exponent);
  }
  int decimals_scientific() const { return static_cast<int>(digits.size()) - 1; }
};

// Reads a number as fmt writes it ("0.0001", "16777216", "1.25e-07", "1e+16").
Decimal parse_decimal(const std::string& text) {
  const std::size_t e = text.find('e');
  const std::string mantissa = text.substr(0, e);
  const int written_exponent = e == std::string::npos ? 0 : std::atoi(text.c_str() + e + 1);
  const std::size_t point = mantissa.find('.');
  const int integer_digits = static_cast<int>(point == std::string::npos ? mantissa.size() : point);

  std::string all = mantissa;
  all.erase(std::remove(all.begin(), all.end(), '.'), all.end());
  const std::size_t first = all.find_first_not_of('0');
  Decimal d;
  if (first == std::string::npos) return d;
  const std::size_t last = all.find_last_not_of('0');
  d.digits = all.substr(first, last - first + 1);
  d.exponent = written_exponent + integer_digits - 1 - static_cast<int>(first);
  return d;
}

// The value rounded to `count` significant digits (ties to even).
Decimal round_significant(double magnitude, int count) {
  return parse_decimal(fmt::format("{:.{}e}", magnitude, count - 1));
}

// The value rounded to `decimals` places after the point (ties to even).
Decimal round_decimals(double magnitude, int decimals) {
  return parse_decimal(fmt::format("{:.{}f}", magnitude, decimals));
}

// Decimal text (fmt's output, so always with '.') read as the nearest float.
float read_float(const std::string& text) {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  float value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
#else
  return std::strtof(text.c_str(), nullptr);  // assumes a '.' decimal point locale
#endif
}

// Fewest significant digits that read back as the same float16 (any float16 needs at most 5).
// At each length the decimal nearest the value is tried first, then the one on the other side
// of it: for a power of two the lower neighbour is closer than the upper one, so the nearest
// decimal can fall outside the round-trip interval on the narrow side while the other one fits.
Decimal shortest_half(double magnitude) {
  const std::uint16_t bits = float16::from_float(static_cast<float>(magnitude));
  const auto reads_back = [bits](const std::string& text) {
    return float16::from_float(read_float(text)) == bits;
  };
  for (int count = 1; count < 5; ++count) {
    const std::string nearest = fmt::format("{:.{}e}", magnitude, count - 1);
    if (reads_back(nearest)) return parse_decimal(nearest);
    // nearest is "d.ddde±x": as an integer n of `count` digits times 10^(x - count + 1).
    std::string digits = nearest.substr(0, nearest.find('e'));
    digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
    const int n = std::atoi(digits.c_str());
    const int scale = std::atoi(nearest.c_str() + nearest.find('e') + 1) - (count - 1);
    for (int other : {n - 1, n + 1}) {
      const std::string text = fmt::format("{}e{}", other, scale);
      if (reads_back(text)) return parse_decimal(text);
    }
  }
  return round_significant(magnitude, 5);
}

// Shortest digits that read back as the same value of `kind`; magnitude holds that value.
Decimal shortest(double magnitude, FloatKind kind) {
  switch (kind) {
    case FloatKind::kHalf:
      return shortest_half(magnitude);
    case FloatKind::kSingle:
      return parse_decimal(fmt::format("{}", static_cast<float>(magnitude)));
    case FloatKind::kDouble:
      break;
  }
  return parse_decimal(fmt::format("{}", magnitude));
}

// 'maxprec' digits: the shortest ones unless they need more than 8 decimals in the given
// notation, in which case the value rounded to 8 decimals (trailing zeros dropped).
Decimal capped_positional(double magnitude, FloatKind kind) {
  Decimal d = shortest(magnitude, kind);
  if (d.decimals_positional() > kMaxDecimals) d = round_decimals(magnitude, kMaxDecimals);
  return d;
}

Decimal capped_scientific(double magnitude, FloatKind kind) {
  Decimal d = shortest(magnitude, kind);
  if (d.decimals_scientific() > kMaxDecimals) d = round_significant(magnitude, kMaxDecimals + 1);
  return d;
}

// ---------------------------------------------------------------------------------------------
// Text of one float.

// "-12" and "5" for -12.5: the digits before and after the decimal point, sign included.
struct PointSplit {
  std::string integer;
  std::string fraction;
};

PointSplit split_at_point(const Decimal& d, bool negative) {
  PointSplit s;
  if (negative) s.integer = "-";
  const int count = static_cast<int>(d.digits.size());
  if (d.exponent < 0) {
    s.integer += '0';
    s.fraction.assign(static_cast<std::size_t>(-d.exponent - 1), '0');
    s.fraction += d.digits;
  } else if (count <= d.exponent + 1) {
    s.integer += d.digits;
    s.integer.append(static_cast<std::size_t>(d.exponent + 1 - count), '0');
  } else {
    s.integer.append(d.digits, 0, static_cast<std::size_t>(d.exponent + 1));
    s.fraction = d.digits.substr(static_cast<std::size_t>(d.exponent + 1));
  }
  return s;
}

int exponent_digit_count(int exponent) {
  return std::max(2, static_cast<int>(std::to_string(std::abs(exponent)).size()));
}

// "e+05", "e-123": at least `width` exponent digits.
std::string exponent_suffix(int exponent, int width) {
  std::string digits = std::to_string(std::abs(exponent));
  if (static_cast<int>(digits.size()) < width) {
    digits.insert(0, static_cast<std::size_t>(width) - digits.size(), '0');
  }
  return (exponent < 0 ? "e-" : "e+") + digits;
}

std::string non_finite_word(double v) {
  if (std::isnan(v)) return "nan";
  return v < 0 ? "-inf" : "inf";
}

struct FloatInfo {
  double array_scientific_from;   // 10**min(8, digits of the dtype)
  double scalar_scientific_from;  // where str() of a NumPy scalar turns scientific
};

FloatInfo info(FloatKind kind) {
  switch (kind) {
    case FloatKind::kHalf:
      return {1e3, 1e3};
    case FloatKind::kSingle:
      return {1e6, 1e6};
    case FloatKind::kDouble:
      break;
  }
  return {1e8, 1e16};
}

// x rounded to the nearest value of `kind`.
double in_dtype(double x, FloatKind kind) {
  switch (kind) {
    case FloatKind::kHalf:
      return float16::to_float(float16::from_float(static_cast<float>(x)));
    case FloatKind::kSingle:
      return static_cast<float>(x);
    case FloatKind::kDouble:
      break;
  }
  return x;
}

std::string scalar_text(double v, FloatKind kind) {
  if (!std::isfinite(v)) return non_finite_word(v);
  const double magnitude = std::fabs(v);
  const bool negative = std::signbit(v);
  const Decimal d = shortest(magnitude, kind);
  if (magnitude == 0 || (magnitude >= 1e-4 && magnitude < info(kind).scalar_scientific_from)) {
    const PointSplit s = split_at_point(d, negative);
    return s.integer + '.' + (s.fraction.empty() ? "0" : s.fraction);
  }
  std::string out = negative ? "-" : "";
  out += d.digits[0];
  if (d.digits.size() > 1) out += '.' + d.digits.substr(1);
  return out + exponent_suffix(d.exponent, 2);
}

// Whether an array's shown values print in scientific notation (see the Note above).
bool needs_scientific(const std::vector<double>& values, FloatKind kind) {
  double largest = 0;
  double smallest = INFINITY;
  for (double v : values) {
    if (!std::isfinite(v) || v == 0) continue;
    largest = std::max(largest, std::fabs(v));
    smallest = std::min(smallest, std::fabs(v));
  }
  if (largest == 0) return false;
  // The quotient in the array's dtype: float16 divides in float32 and rounds the result.
  const double ratio =
      kind == FloatKind::kDouble
          ? largest / smallest
          : in_dtype(static_cast<float>(largest) / static_cast<float>(smallest), kind);
  return largest >= info(kind).array_scientific_from || smallest < in_dtype(1e-4, kind) ||
         ratio > 1000;
}

// Texts of an array's shown floats, before the common right-alignment.
std::vector<std::string> float_texts(const std::vector<double>& values, FloatKind kind) {
  std::vector<std::string> out;
  out.reserve(values.size());

  if (needs_scientific(values, kind)) {
    std::vector<Decimal> own(values.size());
    int decimals = 0;
    int exponent_width = 2;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!std::isfinite(values[i])) continue;
      own[i] = capped_scientific(std::fabs(values[i]), kind);
      decimals = std::max(decimals, own[i].decimals_scientific());
      exponent_width = std::max(exponent_width, exponent_digit_count(own[i].exponent));
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double v = values[i];
      if (!std::isfinite(v)) {
        out.push_back(non_finite_word(v));
        continue;
      }
      // A value whose own digits fill the width keeps them (for a power of two they can differ
      // from plain rounding); shorter ones are extended with further exact digits.
      const Decimal d = own[i].decimals_scientific() == decimals
                            ? own[i]
                            : round_significant(std::fabs(v), decimals + 1);
      std::string mantissa = d.digits;
      mantissa.resize(static_cast<std::size_t>(decimals) + 1, '0');
      std::string text = std::signbit(v) ? "-" : "";
      text += mantissa[0];
      text += '.';
      text.append(mantissa, 1, std::string::npos);
      out.push_back(text + exponent_suffix(d.exponent, exponent_width));
    }
    return out;
  }

  std::vector<PointSplit> splits(values.size());
  std::size_t fraction_width = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) continue;
    splits[i] =
        split_at_point(capped_positional(std::fabs(values[i]), kind), std::signbit(values[i]));
    fraction_width = std::max(fraction_width, splits[i].fraction.size());
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      out.push_back(non_finite_word(values[i]));
      continue;
    }
    const PointSplit& s = splits[i];
    out.push_back(s.integer + '.' + s.fraction +
                  std::string(fraction_width - s.fraction.size(), ' '));
  }
  return out;
}

void align_right(std::vector<std::string>& texts) {
  std::size_t width = 0;
  for (const std::string& t : texts) width = std::max(width, t.size());
  for (std::string& t : texts) t.insert(0, width - t.size(), ' ');
}

// ---------------------------------------------------------------------------------------------
// Placement of the element texts (see the Note above).

constexpr std::int64_t kEllipsis = -1;  // stands for "..." in a list of shown indices

class Layout {
 public:
  explicit Layout(const Shape& shape) : rank_(shape.rank()), strides_(rank_, 1) {
    const bool summarize = shape.num_elements() > kSummarizeAbove;
    for (int axis = rank_ - 2; axis >= 0; --axis) {
      strides_[axis] = strides_[axis + 1] * shape[axis + 1];
    }
    for (int axis = 0; axis < rank_; ++axis) {
      std::vector<std::int64_t> indices;
      const std::int64_t length = shape[axis];
      const bool cut = summarize && length > 2 * kEdgeItems;
      for (std::int64_t i = 0; i < length; ++i) {
        if (cut && i == kEdgeItems) {
          indices.push_back(kEllipsis);
          i = length - kEdgeItems;
        }
        indices.push_back(i);
      }
      shown_.push_back(std::move(indices));
    }
  }

  // Flat row-major offsets of the shown elements, in printing order.
  std::vector<std::int64_t> shown_offsets() const {
    std::vector<std::int64_t> out;
    add_offsets(0, 0, out);
    return out;
  }

  // texts[i]: the text of the element at shown_offsets()[i].
  std::string render(const std::vector<std::string>& texts) const {
    std::size_t next = 0;
    return render_axis(0, texts, next);
  }

 private:
  void add_offsets(int axis, std::int64_t base, std::vector<std::int64_t>& out) const {
    if (axis == rank_) {
      out.push_back(base);
      return;
    }
    for (std::int64_t i : shown_[axis]) {
      if (i != kEllipsis) add_offsets(axis + 1, base + i * strides_[axis], out);
    }
  }

  std::string render_axis(int axis, const std::vector<std::string>& texts,
                          std::size_t& next) const {
    if (axis == rank_ - 1) return render_row(texts, next);
    const std::string between = std::string(static_cast<std::size_t>(rank_ - axis - 1), '\n') +
                                std::string(static_cast<std::size_t>(axis + 1), ' ');
    std::string out = "[";
    for (std::size_t k = 0; k < shown_[axis].size(); ++k) {
      if (k > 0) out += between;
      out += shown_[axis][k] == kEllipsis ? "..." : render_axis(axis + 1, texts, next);
    }
    return out + ']';
  }

  // One innermost row. The first line begins after `rank_` opening brackets, continuation lines
  // after `rank_` spaces; `column` tracks the width of the current line so far.
  std::string render_row(const std::vector<std::string>& texts, std::size_t& next) const {
    const std::size_t margin = static_cast<std::size_t>(rank_);
    const std::size_t limit = static_cast<std::size_t>(kLineWidth - rank_);
    const std::string dots = "...";
    std::string out = "[";
    std::size_t column = margin;
    bool line_has_word = false;
    for (std::int64_t i : shown_.back()) {
      const std::string& word = i == kEllipsis ? dots : texts[next++];
      if (line_has_word && column + 1 + word.size() > limit) {
        out.erase(out.find_last_not_of(' ') + 1);
        out += '\n';
        out.append(margin, ' ');
        column = margin;
      } else if (line_has_word) {
        out += ' ';
        column += 1;
      }
      out += word;
      column += word.size();
      line_has_word = true;
    }
    return out + ']';
  }

 public:
  // NumPy's _formatArray as repr() runs it: ", " between items, lines of at most `width`
  // columns, continuation lines after `hanging` (the width of "array([").
  std::string render_repr(const std::vector<std::string>& texts, std::size_t width,
                          const std::string& hanging) const {
    std::size_t next = 0;
    return repr_axis(0, hanging, width, texts, next);
  }

 private:
  static void extend_line(std::string& s, std::string& line, const std::string& word,
                          std::size_t width, const std::string& hanging) {
    if (line.size() + word.size() > width && line.size() > hanging.size()) {
      s += line.substr(0, line.find_last_not_of(' ') + 1) + '\n';
      line = hanging;
    }
    line += word;
  }

  std::string repr_axis(int axis, const std::string& hanging, std::size_t width,
                        const std::vector<std::string>& texts, std::size_t& next) const {
    const std::string deeper = hanging + ' ';
    const std::size_t next_width = width - 1;  // room for this axis's "]"
    const std::vector<std::int64_t>& shown = shown_[axis];
    std::string s;
    if (axis == rank_ - 1) {
      const std::size_t item_width = width - 1;  // max(len(","), len("]"))
      std::string line = hanging;
      for (std::size_t k = 0; k < shown.size(); ++k) {
        const std::string& word = shown[k] == kEllipsis ? kDots : texts[next++];
        extend_line(s, line, word, item_width, hanging);
        if (k + 1 < shown.size()) line += ", ";
      }
      s += line;
    } else {
      const std::string line_sep =
          "," + std::string(static_cast<std::size_t>(rank_ - axis - 1), '\n');
      for (std::size_t k = 0; k < shown.size(); ++k) {
        s += hanging;
        s += shown[k] == kEllipsis ? kDots : repr_axis(axis + 1, deeper, next_width, texts, next);
        if (k + 1 < shown.size()) s += line_sep;
      }
    }
    return '[' + s.substr(hanging.size()) + ']';
  }

  static inline const std::string kDots = "...";

  int rank_;
  std::vector<std::int64_t> strides_;
  std::vector<std::vector<std::int64_t>> shown_;  // per axis, with kEllipsis at a cut
};

// ---------------------------------------------------------------------------------------------
// Reading host values.

template <class T>
T load(const void* data, std::int64_t index) {
  T v;
  std::memcpy(&v, static_cast<const char*>(data) + index * static_cast<std::int64_t>(sizeof(T)),
              sizeof(T));
  return v;
}

double load_float(DType dtype, const void* data, std::int64_t index) {
  switch (dtype) {
    case DType::kFloat32:
      return load<float>(data, index);
    case DType::kFloat64:
      return load<double>(data, index);
    case DType::kFloat16:
      return float16::to_float(load<std::uint16_t>(data, index));
    case DType::kBFloat16:
      return bfloat16::to_float(load<std::uint16_t>(data, index));
    default:
      return 0;
  }
}

FloatKind float_kind(DType dtype) {
  switch (dtype) {
    case DType::kFloat16:
      return FloatKind::kHalf;
    case DType::kFloat64:
      return FloatKind::kDouble;
    default:
      return FloatKind::kSingle;  // float32, and bfloat16 printed as float32
  }
}

std::int64_t load_int(DType dtype, const void* data, std::int64_t index) {
  return dtype == DType::kInt32 ? load<std::int32_t>(data, index) : load<std::int64_t>(data, index);
}

bool load_bool(const void* data, std::int64_t index) {
  return static_cast<const unsigned char*>(data)[index] != 0;
}

bool is_float(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat64 || dtype == DType::kFloat16 ||
         dtype == DType::kBFloat16;
}

bool is_int(DType dtype) { return dtype == DType::kInt32 || dtype == DType::kInt64; }

// The element texts of the shown elements, aligned, as str() and repr() both print them.
std::vector<std::string> element_texts(DType dtype, const Layout& layout, const void* host_data) {
  const std::vector<std::int64_t> offsets = layout.shown_offsets();
  std::vector<std::string> texts;
  texts.reserve(offsets.size());
  if (is_float(dtype)) {
    std::vector<double> values;
    values.reserve(offsets.size());
    for (std::int64_t i : offsets) values.push_back(load_float(dtype, host_data, i));
    texts = float_texts(values, float_kind(dtype));
  } else if (is_int(dtype)) {
    for (std::int64_t i : offsets) texts.push_back(std::to_string(load_int(dtype, host_data, i)));
  } else {
    for (std::int64_t i : offsets) texts.push_back(load_bool(host_data, i) ? " True" : "False");
  }
  align_right(texts);
  return texts;
}

std::string scalar_text_of(DType dtype, const void* host_data) {
  if (is_float(dtype)) return scalar_text(load_float(dtype, host_data, 0), float_kind(dtype));
  if (is_int(dtype)) return std::to_string(load_int(dtype, host_data, 0));
  return load_bool(host_data, 0) ? "True" : "False";
}

}  // namespace

std::string format_array_repr(DType dtype, const Shape& shape, const void* host_data) {
  if (shape.rank() == 0) return scalar_text_of(dtype, host_data);
  // NumPy leaves out the dtypes it would infer: float64, int64 and bool (of a non-empty array).
  const bool implied =
      (dtype == DType::kFloat64 || dtype == DType::kInt64 || dtype == DType::kBool) &&
      shape.num_elements() > 0;
  const std::string prefix = "array(";
  const std::string suffix = implied ? ")" : ",";
  std::string body;
  if (shape.num_elements() > 0) {
    const Layout layout(shape);
    body = layout.render_repr(element_texts(dtype, layout, host_data),
                              static_cast<std::size_t>(kLineWidth) - suffix.size(),
                              std::string(prefix.size() + 1, ' '));  // under "array(["
  } else {
    body = shape.rank() == 1 ? "[]" : "[], shape=" + shape.to_tuple_string();
  }
  std::string text = prefix + body + suffix;
  if (implied) return text;
  const std::string dtype_text = "dtype=" + std::string(dtype_name(dtype)) + ")";
  const std::size_t last_line = text.size() - (text.rfind('\n') + 1);
  const bool wrap = last_line + dtype_text.size() + 1 > static_cast<std::size_t>(kLineWidth);
  return text + (wrap ? "\n" + std::string(prefix.size(), ' ') : " ") + dtype_text;
}

std::string format_array(DType dtype, const Shape& shape, const void* host_data) {
  if (shape.rank() == 0) return scalar_text_of(dtype, host_data);
  if (shape.num_elements() == 0) return "[]";
  const Layout layout(shape);
  return layout.render(element_texts(dtype, layout, host_data));
}

std::string format_string_array(const Shape& shape, const std::string* values) {
  if (shape.rank() == 0) return bytes_repr(values[0]);
  if (shape.num_elements() == 0) return "[]";
  const Layout layout(shape);
  std::vector<std::string> texts;
  for (std::int64_t i : layout.shown_offsets()) texts.push_back(bytes_repr(values[i]));
  return layout.render(texts);  // NumPy does not align strings
}

}  // namespace eagle::detail
