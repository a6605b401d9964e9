// Which instruction-set variant of the hot CPU kernels this translation unit is compiled as
// (Note [CPU kernel variants] in cpu_variant.cpp).
#pragma once

// The build defines EAGLE_CPU_ISA (avx2, avx512) for the extra compiles of the variant sources;
// the library's own compile is the baseline.
#ifndef EAGLE_CPU_ISA
#define EAGLE_CPU_ISA baseline
// The library's own compile (baseline or native), as opposed to an extra variant's: the one place
// for a variant source's process-wide definitions.
#define EAGLE_CPU_ISA_LIBRARY_COMPILE 1
#endif

// Wraps a variant source's code and the headers it instantiates: each variant's symbols carry its
// name, and callers outside the variant sources (other kernels, tests) reach the baseline
// unqualified through the inline namespace.
#define EAGLE_CPU_ISA_BEGIN inline namespace EAGLE_CPU_ISA {
#define EAGLE_CPU_ISA_END }
