// Tells valgrind memcheck which bytes of device-allocator memory a program may touch, in builds
// with EAGLE_VALGRIND defined (preset memcheck, scripts/memcheck.sh); elsewhere it compiles to
// nothing. See Note [Valgrind annotations].
#pragma once

#include <cstddef>

// Note [Valgrind annotations]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A simulated GPU's memory is one MAP_NORESERVE mapping of the allocator's whole limit (about
// 14 GiB per GPU by default) that BfcAllocator cuts into chunks. Valgrind sees only the mapping:
// every byte of it counts as defined and addressable, so memcheck cannot tell a freed or
// never-allocated chunk from a live one, and its leak check reads the whole mapping looking for
// pointers, minutes per scenario test. With EAGLE_VALGRIND, BfcAllocator marks a region it takes
// from its provider no-access, a chunk undefined when it hands it out and no-access again when
// it is freed: reads and writes outside live tensors on a simulated GPU are errors, as they are
// for heap blocks, and the leak check skips the unused parts. On a CUDA GPU the chunk addresses
// are device addresses the host never dereferences, so the marks change nothing.
#if defined(EAGLE_VALGRIND)
#if !__has_include(<valgrind/memcheck.h>)
#error "EAGLE_VALGRIND needs <valgrind/memcheck.h> (Debian package valgrind)"
#endif
#include <valgrind/memcheck.h>
#define EAGLE_VALGRIND_MAKE_NOACCESS(ptr, bytes) \
  static_cast<void>(VALGRIND_MAKE_MEM_NOACCESS((ptr), (bytes)))
#define EAGLE_VALGRIND_MAKE_UNDEFINED(ptr, bytes) \
  static_cast<void>(VALGRIND_MAKE_MEM_UNDEFINED((ptr), (bytes)))
#else
#define EAGLE_VALGRIND_MAKE_NOACCESS(ptr, bytes) static_cast<void>(0)
#define EAGLE_VALGRIND_MAKE_UNDEFINED(ptr, bytes) static_cast<void>(0)
#endif
