# cmake -P script: links one CPU kernel variant's objects (OBJECTS) into OUT and makes every
# function in it local except the variant's entry point, so that no variant's copy of an inline
# function (fmt, half.hpp, the standard library) can stand in for another's at link time (Note
# [CPU kernel variants] in src/backends/cpu/cpu_variant.cpp). Data symbols stay global: an inline variable
# stays one object in the process. Needs GNU ld (--force-group-allocation: binutils 2.29).
# Inputs: LD, NM, OBJCOPY, OBJECTS (a list), OUT, ENTRY (a substring of the entry's mangled name).
set(partial "${OUT}.partial.o")
execute_process(COMMAND "${LD}" -r --force-group-allocation -o "${partial}" ${OBJECTS}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ld -r of the ${ENTRY} objects failed")
endif()
execute_process(COMMAND "${NM}" -P -g --defined-only "${partial}" OUTPUT_VARIABLE listing
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm of ${partial} failed")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(keep "")
set(found_entry FALSE)
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ ]+) ([A-Za-z]) ")
    set(name "${CMAKE_MATCH_1}")
    set(type "${CMAKE_MATCH_2}")
    if(name MATCHES "${ENTRY}")
      string(APPEND keep "${name}\n")
      set(found_entry TRUE)
    elseif(type MATCHES "^[VvuDBRGSC]$" AND NOT name MATCHES "^_ZT[VCT]")
      # Data, but not vtables and VTTs: they point at the variant's (local) functions.
      string(APPEND keep "${name}\n")
    endif()
  endif()
endforeach()
if(NOT found_entry)
  message(FATAL_ERROR "${partial} defines no symbol matching ${ENTRY}")
endif()
# A variant runs no code before register_kernels chose it: a static initializer would run its
# instructions at load time on any CPU.
execute_process(COMMAND "${NM}" -P "${partial}" OUTPUT_VARIABLE all_symbols)
if(all_symbols MATCHES "_GLOBAL__sub_I")
  message(FATAL_ERROR "${ENTRY}: a variant source has a static initializer; move it to a "
                      "baseline source")
endif()
file(WRITE "${OUT}.keep" "${keep}")
execute_process(COMMAND "${OBJCOPY}" "--keep-global-symbols=${OUT}.keep" "${partial}" "${OUT}"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "objcopy of ${partial} failed")
endif()
file(REMOVE "${partial}")
