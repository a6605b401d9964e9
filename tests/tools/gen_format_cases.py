#!/usr/bin/env python3
"""Generates the expected strings of tests/format_array_test.cpp from NumPy.

Every case is an array built here with NumPy; its expected text is `str(array)` (NumPy's default
print options). The script prints C++ TEST_CASEs; paste them over the generated block of
tests/format_array_test.cpp (between the "BEGIN GENERATED" and "END GENERATED" markers), then run
clang-format. bfloat16 cases are printed by NumPy as the float32 values they convert to.

Usage: python3 tests/tools/gen_format_cases.py > /tmp/cases.inc

With --half it instead prints the conversion tables of tests/half_test.cpp (float32 bits ->
np.float16 bits, and float32 bits -> bfloat16 bits rounded to nearest even, computed exactly with
fractions since NumPy has no bfloat16).
"""
import math
import sys
from fractions import Fraction
import warnings

import numpy as np

warnings.filterwarnings("ignore")

CPP_TYPE = {
    "float32": "float",
    "float64": "double",
    "float16": "eagle::float16",
    "bfloat16": "eagle::bfloat16",
    "int32": "std::int32_t",
    "int64": "std::int64_t",
    "bool": "std::uint8_t",
}
DTYPE_CONST = {
    "float32": "eagle::float32",
    "float64": "eagle::float64",
    "float16": "eagle::float16_t",
    "bfloat16": "eagle::bfloat16_t",
    "int32": "eagle::int32",
    "int64": "eagle::int64",
    "bool": "eagle::bool_",
}


def to_bfloat16(values):
    """Rounds float32 values to bfloat16 (ties to even), returned as the float32 they equal."""
    bits = np.asarray(values, dtype=np.float32).reshape(-1).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return rounded.astype(np.uint32).view(np.float32).reshape(np.shape(values))


def float_literal(x, dtype):
    """A C++ expression for the exact value x of the given floating dtype."""
    x = float(x)
    if math.isnan(x):
        return "kNaN"
    if math.isinf(x):
        return "kInf" if x > 0 else "-kInf"
    if dtype == "float64":
        return repr(x)
    # float32, float16 and bfloat16 values are all exact float32 values; the float16/bfloat16
    # wrappers convert them exactly.
    text = repr(float(np.float32(x)))
    s = str(np.float32(x))
    if float(np.float32(s)) == float(np.float32(x)):
        text = s
    if "e" not in text and "." not in text and "inf" not in text:
        text += ".0"
    return text + "f"


def cpp_string(s):
    """The text as adjacent C++ string literals, one per output line."""
    lines = s.split("\n")
    parts = []
    for i, line in enumerate(lines):
        esc = line.replace("\\", "\\\\").replace('"', '\\"')
        if i + 1 < len(lines):
            esc += "\\n"
        parts.append('"' + esc + '"')
    return "\n      ".join(parts)


CASES = []


def case(name, dtype, values, shape=None):
    """A case given by its values (a nested list or an array), printed from NumPy."""
    if dtype == "bfloat16":
        arr = to_bfloat16(np.array(values, dtype=np.float32))
    else:
        arr = np.array(values, dtype=dtype)
    if shape is not None:
        arr = arr.reshape(shape)
    CASES.append(dict(name=name, dtype=dtype, arr=arr, gen=None))


def gen_case(name, dtype, shape, np_fn, cpp_lambda):
    """A case whose values are computed: np_fn(i) over i = arange(n), and the same in C++."""
    n = int(np.prod(shape))
    arr = np_fn(np.arange(n)).reshape(shape)
    assert arr.dtype == np.dtype(dtype), (name, arr.dtype)
    CASES.append(dict(name=name, dtype=dtype, arr=arr, gen=cpp_lambda))


nan, inf = np.nan, np.inf

# float32 ---------------------------------------------------------------------------------------
case("float32 2x2 integer values", "float32", [[22, 28], [49, 64]])
case("float32 padding of fraction digits", "float32", [1.5, 2, 3])
case("float32 negative values", "float32", [-1.25, 0.5, -3])
case("float32 shortest repr of float32", "float32", [0.1, 0.2, 0.3])
case("float32 small and one switch to scientific", "float32", [1e-5, 1.0])
case("float32 large and one switch to scientific", "float32", [1e10, 1])
case("float32 ratio over 1000 switches to scientific", "float32", [1, 1000.0001])
case("float32 at least 1e6 switches to scientific", "float32", [1e6, 2e6])
case("float32 1e-4 compared in float32 stays positional", "float32", [1e-4, 2e-4])
case("float32 scientific pads digits past shortest", "float32", [0.3, 1.2345678e-5])
case("float32 nan and infinities alone", "float32", [nan, inf, -inf])
case("float32 nan and infinities with values", "float32", [1.5, nan, -inf])
case("float32 nan and infinities with scientific", "float32", [1e-5, nan, -inf])
case("float32 negative zero", "float32", [-0.0, 1])
case("float32 zeros", "float32", [0, 0])
case("float32 pi and e", "float32", [3.14159265, -2.71828182])
case("float32 rank 3", "float32", np.arange(24, dtype=np.float32) / np.float32(7), (2, 3, 4))
case("float32 rank 4", "float32", np.arange(24, dtype=np.float32) - 12, (2, 2, 2, 3))
case("float32 one element matrix", "float32", [[7.5]])
case("float32 column vector", "float32", [[1], [-2], [3]])
gen_case("float32 line wrapping", "float32", (30,),
         lambda i: i.astype(np.float32) * np.float32(1.5),
         "[](std::int64_t i) { return static_cast<float>(i) * 1.5f; }")
gen_case("float32 wrapped rows in a matrix", "float32", (2, 20),
         lambda i: i.astype(np.float32) / np.float32(7),
         "[](std::int64_t i) { return static_cast<float>(i) / 7.0f; }")
gen_case("float32 summarized vector", "float32", (2000,),
         lambda i: i.astype(np.float32) / np.float32(3),
         "[](std::int64_t i) { return static_cast<float>(i) / 3.0f; }")
gen_case("float32 summarized matrix", "float32", (40, 50),
         lambda i: i.astype(np.float32) / np.float32(3),
         "[](std::int64_t i) { return static_cast<float>(i) / 3.0f; }")
gen_case("float32 summarized rank 3", "float32", (10, 10, 30),
         lambda i: i.astype(np.float32) * np.float32(0.5),
         "[](std::int64_t i) { return static_cast<float>(i) * 0.5f; }")
gen_case("float32 summarized only along long axes", "float32", (2, 1001),
         lambda i: i.astype(np.float32),
         "[](std::int64_t i) { return static_cast<float>(i); }")
gen_case("float32 exactly 1000 elements are not summarized", "float32", (10, 100),
         lambda i: i.astype(np.float32),
         "[](std::int64_t i) { return static_cast<float>(i); }")
case("float32 empty vector", "float32", [], (0,))
case("float32 empty 2x0", "float32", np.zeros((2, 0), np.float32))
case("float32 empty 0x3", "float32", np.zeros((0, 3), np.float32))
case("float32 scalar integer value", "float32", 3.0, ())
case("float32 scalar fraction", "float32", -2.5, ())
case("float32 scalar shortest repr", "float32", 0.1, ())
case("float32 scalar large is scientific", "float32", 1e20, ())
case("float32 scalar from 1e6 is scientific", "float32", 16777216.0, ())
case("float32 scalar just below 1e6 is positional", "float32", 999999.94, ())
case("float32 scalar small is scientific", "float32", 1e-5, ())
case("float32 scalar nan", "float32", nan, ())
case("float32 scalar negative infinity", "float32", -inf, ())
case("float32 scalar negative zero", "float32", -0.0, ())
# 2**-96: its shortest digits 1.2621775 are not the nearest 8 digits (1.2621774 lies outside the
# narrower round-trip interval below a power of two); padded scientific notation keeps them.
case("float32 scientific keeps the shortest digits of a power of two", "float32",
     [2.0**-96, 1])

# float64 ---------------------------------------------------------------------------------------
case("float64 at most 8 decimals", "float64", [0.1, 0.2, 0.1 + 0.2])
case("float64 thirds", "float64", [1 / 3, 2 / 3])
case("float64 small and one", "float64", [1e-5, 1.0])
case("float64 below 1e8 stays positional", "float64", [1e7, 2e7])
case("float64 from 1e8 is scientific", "float64", [1e8, 1])
case("float64 three digit exponents", "float64", [1e100, -1e-100, 1])
case("float64 nine significant digits in scientific", "float64", [math.pi * 1e-10, 1])
case("float64 mixed magnitudes", "float64", [123456.789, 0.001])
case("float64 nan in a matrix", "float64", [[1.5, nan], [-2.25, 4]])
case("float64 scalar", "float64", 3.0, ())
case("float64 scalar shortest repr", "float64", 0.1 + 0.2, ())
case("float64 scalar below 1e16 is positional", "float64", 1e15, ())
case("float64 scalar from 1e16 is scientific", "float64", 1e16, ())
case("float64 scalar 1e-4 is positional", "float64", 1e-4, ())
gen_case("float64 summarized vector", "float64", (1001,),
         lambda i: i.astype(np.float64) / 7,
         "[](std::int64_t i) { return static_cast<double>(i) / 7.0; }")

# float16 ---------------------------------------------------------------------------------------
case("float16 shortest repr of float16", "float16", [0.1, 0.2, 0.3])
case("float16 at least 1e3 is scientific", "float16", [1000, 2000])
case("float16 max value", "float16", [65504, 1])
case("float16 one third", "float16", [1 / 3, 2])
case("float16 1e-4 compared in float16 stays positional", "float16", [1e-4, 2e-4])
case("float16 infinities", "float16", [inf, -1.5, -inf])
case("float16 subnormals", "float16", [6e-8, 1e-6, 1])
# 2**-6 = 0.015625: of the 4-digit decimals around it, the nearest (0.01562, a tie rounded to
# even) does not read back as it, the other one (0.01563) does.
case("float16 power of two takes the decimal on its wider side", "float16", [0.015625, 1])
case("float16 scalar", "float16", 0.1, ())
case("float16 scalar 1e3 is scientific", "float16", 1000, ())
case("float16 scalar max", "float16", 65504, ())
case("float16 scalar below 1e3", "float16", 999.5, ())
gen_case("float16 summarized matrix", "float16", (30, 40),
         lambda i: ((i % 64) * 0.25).astype(np.float16),
         "[](std::int64_t i) { return eagle::float16(static_cast<float>(i % 64) * 0.25f); }")

# bfloat16 (printed as the float32 it converts to) -----------------------------------------------
case("bfloat16 values", "bfloat16", [0.1, 1.5, 3.0])
case("bfloat16 matrix", "bfloat16", [[1, -2.5], [1e-3, 100]])
case("bfloat16 scalar", "bfloat16", 3.14159, ())
case("bfloat16 large values", "bfloat16", [1e6, 3e38])

# int32 / int64 --------------------------------------------------------------------------------
case("int32 vector", "int32", [1, 2, 3])
case("int32 right aligned", "int32", [-100, 5, 7])
case("int32 extremes", "int32", [2**31 - 1, -2**31])
case("int64 extremes", "int64", [2**63 - 1, -2**63, 0])
case("int32 scalar", "int32", 5, ())
case("int64 scalar negative", "int64", -7, ())
case("int32 rank 4", "int32", np.arange(120), (2, 3, 4, 5))
case("int64 empty 2x0", "int64", np.zeros((2, 0), np.int64))
gen_case("int32 line wrapping", "int32", (40,),
         lambda i: (i * 1000).astype(np.int32),
         "[](std::int64_t i) { return static_cast<std::int32_t>(i * 1000); }")
gen_case("int64 summarized vector", "int64", (2000,),
         lambda i: i.astype(np.int64),
         "[](std::int64_t i) { return i; }")
gen_case("int64 summarized matrix", "int64", (20, 100),
         lambda i: (i - 1000).astype(np.int64),
         "[](std::int64_t i) { return i - 1000; }")

# bool -----------------------------------------------------------------------------------------
case("bool vector", "bool", [True, False, True])
case("bool matrix", "bool", [[True, True, True], [False, False, False]])
case("bool scalar true", "bool", True, ())
case("bool scalar false", "bool", False, ())
gen_case("bool summarized vector", "bool", (2000,),
         lambda i: i % 3 == 0,
         "[](std::int64_t i) { return static_cast<std::uint8_t>(i % 3 == 0); }")


def emit(c):
    dtype, arr = c["dtype"], c["arr"]
    expected = str(arr)
    shape = "eagle::Shape{" + ", ".join(str(d) for d in arr.shape) + "}"
    if not arr.shape:
        shape = "eagle::Shape{}"
    out = [f'TEST_CASE("format_array: {c["name"]}", "[format_array]") {{']
    if c["gen"] is not None:
        out.append(f"  const auto values = generate<{CPP_TYPE[dtype]}>({arr.size}, {c['gen']});")
    else:
        flat = arr.reshape(-1)
        if dtype in ("int32", "int64"):
            items = []
            for v in flat.tolist():
                if v == -2**63:
                    items.append("std::numeric_limits<std::int64_t>::min()")
                elif v == -2**31 and dtype == "int32":
                    items.append("std::numeric_limits<std::int32_t>::min()")
                else:
                    items.append(str(v))
        elif dtype == "bool":
            items = ["1" if v else "0" for v in flat.tolist()]
        else:
            items = [float_literal(v, dtype) for v in flat.tolist()]
            if dtype in ("float16", "bfloat16"):
                items = [f"{CPP_TYPE[dtype]}({x})" for x in items]
        out.append(f"  const std::vector<{CPP_TYPE[dtype]}> values = {{{', '.join(items)}}};")
    out.append(f"  CHECK(format(values, {DTYPE_CONST[dtype]}, {shape}) ==")
    out.append(f"        {cpp_string(expected)});")
    out.append("}")
    return "\n".join(out)


# float16 / bfloat16 conversion tables ----------------------------------------------------------


def f32(bits):
    return np.array([bits], dtype=np.uint32).view(np.float32)[0]


def f16_bits(x):
    return int(np.array([x], dtype=np.float32).astype(np.float16).view(np.uint16)[0])


def half_inputs():
    """float32 bit patterns that exercise float -> float16 rounding."""
    rng = np.random.default_rng(2024)
    out = []
    # Ties between neighbouring float16 values, and one float32 ulp either side of the tie.
    halves = [0x0001, 0x0002, 0x0003, 0x01FF, 0x03FE, 0x03FF, 0x0400, 0x0401, 0x3C00, 0x3C01,
              0x3555, 0x4248, 0x57FF, 0x6400, 0x7BFE, 0x7BFF, 0x0000]
    for h in halves:
        lo = np.array([h], np.uint16).view(np.float16).astype(np.float32)[0]
        hi = np.array([h + 1], np.uint16).view(np.float16).astype(np.float32)[0]
        mid = np.float32((np.float64(lo) + np.float64(hi)) / 2)  # exact in float32
        b = int(np.array([mid], np.float32).view(np.uint32)[0])
        out += [b, b - 1, b + 1]
    # Overflow: 65504 is the largest float16; from 65520 (the tie with 65536) up is inf.
    for x in [65504.0, 65505.0, 65519.0, 65519.996, 65520.0, 65536.0, 1e5, 3.4028235e38]:
        out.append(int(np.array([x], np.float32).view(np.uint32)[0]))
    out += [0x477FEFFF, 0x477FF000, 0x477FF001, 0x7F7FFFFF, 0x7F800000]
    # Underflow: 2^-24 is the smallest subnormal; 2^-25 ties to 0; float32 subnormals give 0.
    out += [0x33800000, 0x33000000, 0x33000001, 0x32FFFFFF, 0x33C00000, 0x33A00000, 0x34200000,
            0x387FC000, 0x387FE000, 0x387FFFFF, 0x38800000, 0x00000001, 0x007FFFFF, 0x00800000,
            0x0C000000]
    # Exact values, zeros and simple fractions.
    for x in [0.0, 1.0, 0.5, 2.0, 0.1, 0.2, 0.3, 1.0 / 3, 3.14159265, 1000.0, 1e-4, 6.1e-5,
              5.96e-8, 1e-8, 2.5, 3.5, 2049.0, 2051.0, 4097.0]:
        out.append(int(np.array([x], np.float32).view(np.uint32)[0]))
    # Random magnitudes across and beyond the float16 range.
    exps = rng.integers(127 - 30, 127 + 18, 200)
    mants = rng.integers(0, 1 << 23, 200)
    out += [int((e << 23) | m) for e, m in zip(exps, mants)]
    # Negative copies of everything so far.
    out += [b | 0x80000000 for b in out]
    seen = set()
    return [b for b in out if not (b in seen or seen.add(b))]


def bf16_bits_exact(bits):
    """Round-to-nearest-even float32 -> bfloat16 done with exact rationals (finite inputs)."""
    sign = bits & 0x80000000
    mag = bits & 0x7FFFFFFF
    lo = mag >> 16
    hi = lo + 1

    def value(b16):
        if b16 >= 0x7F80:
            return None  # the overflow bound: treat 0x7F80 as 2^128
        return Fraction(float(f32(b16 << 16)))

    x = Fraction(float(f32(mag)))
    vlo = value(lo)
    vhi = value(hi) if hi < 0x7F80 else Fraction(2) ** 128
    if x - vlo < vhi - x:
        r = lo
    elif x - vlo > vhi - x:
        r = hi
    else:
        r = lo if lo % 2 == 0 else hi
    return (sign >> 16) | r


def bf16_inputs():
    rng = np.random.default_rng(99)
    out = [0x3F808000, 0x3F818000, 0x3F808001, 0x3F807FFF, 0x3F818001, 0x3F817FFF, 0x3F800000,
           0x3F7FFFFF, 0x00008000, 0x00018000, 0x00000001, 0x007FFFFF, 0x7F7F7FFF, 0x7F7F8000,
           0x7F7FFFFF, 0x7F7F0000, 0x00000000, 0x3DCCCCCD, 0x40490FDB, 0x4B7FFFFF]
    out += [int(b) for b in rng.integers(0, 0x7F800000, 150)]
    out += [(int(b) & 0xFFFF0000) | 0x8000 for b in rng.integers(0, 0x7F800000, 50)]
    out += [b | 0x80000000 for b in out]
    seen = set()
    return [b for b in out if not (b in seen or seen.add(b))]


def emit_table(name, pairs):
    rows = [f"    {{0x{a:08X}u, 0x{b:04X}u}}," for a, b in pairs]
    head = f"const std::vector<std::pair<std::uint32_t, std::uint16_t>> {name} = {{"
    return "\n".join([head] + rows + ["};"])


def main_half():
    f16 = [(b, f16_bits(f32(b))) for b in half_inputs()]
    bf16 = [(b, bf16_bits_exact(b)) for b in bf16_inputs()]
    print("// BEGIN GENERATED by tests/tools/gen_format_cases.py --half (NumPy " + np.__version__ +
          ")")
    print("// {float32 bits, np.float16 bits}")
    print(emit_table("kFloatToHalf", f16))
    print("// {float32 bits, bfloat16 bits}: round to nearest, ties to even")
    print(emit_table("kFloatToBFloat16", bf16))
    print("// END GENERATED")
    print(f"// {len(f16)} float16 and {len(bf16)} bfloat16 cases", file=sys.stderr)


def main():
    if "--half" in sys.argv[1:]:
        main_half()
        return
    print("// BEGIN GENERATED by tests/tools/gen_format_cases.py (NumPy " + np.__version__ + ")")
    for c in CASES:
        print()
        print(emit(c))
    print()
    print("// END GENERATED")
    print(f"// {len(CASES)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
