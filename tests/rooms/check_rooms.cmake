# cmake -P script: the build's room walls hold (Note [Rooms] in cmake/EagleRooms.cmake). Each
# probe is a one-line file compiled as a source of a room is, with that room's include folder and
# the public headers only: an include the room table allows compiles, one it forbids fails for
# want of that very header.
# Inputs: CXX (the compiler), ROOMS (build/rooms), PUBLIC_INCLUDE (include/), WORK (a scratch
# folder).

file(MAKE_DIRECTORY ${WORK})

function(probe room header expect)
  set(source ${WORK}/${room}_probe.cpp)
  file(WRITE ${source} "#include \"${header}\"\n")
  execute_process(COMMAND ${CXX} -std=c++17 -fsyntax-only -I${ROOMS}/${room} -I${PUBLIC_INCLUDE}
                          ${source}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(expect STREQUAL "allowed" AND NOT rc EQUAL 0)
    message(SEND_ERROR "room ${room} should reach ${header}, but:\n${err}")
  elseif(expect STREQUAL "forbidden")
    if(rc EQUAL 0)
      message(SEND_ERROR "room ${room} reached ${header} across a wall")
    elseif(NOT err MATCHES "${header}: No such file or directory")
      message(SEND_ERROR "room ${room} including ${header} failed for another reason:\n${err}")
    endif()
  endif()
  message(STATUS "${room} -> ${header}: ${expect}")
endfunction()

# The distribution room is private to itself.
probe(keras distribute/strategy_runtime.hpp forbidden)
probe(variables distribute/mirrored_variable.hpp forbidden)
probe(optimizers distribute/strategy_runtime.hpp forbidden)
probe(distribute distribute/strategy_runtime.hpp allowed)
# The op schema is a leaf: it reaches nothing of the library's private rooms.
probe(opdefs runtime/dispatcher.hpp forbidden)
probe(ops opdefs/attrs.hpp allowed)
# Front-ends do not record on the tape; backends do not reach front-ends or Keras.
probe(ops autodiff/tape.hpp forbidden)
probe(cpu ops/op_support.hpp forbidden)
probe(cpu keras/model_weights.hpp forbidden)
probe(kernels cpu/matmul.hpp forbidden)
# The runtime names no backend (Note [Backend registry]): only the composition root reaches them,
# and the backends do not reach one another.
probe(runtime cpu/register_kernels.hpp forbidden)
probe(runtime simulated/simulated_gpu_spec.hpp forbidden)
probe(runtime portable/portable_kernels.hpp forbidden)
probe(runtime kernels/registration.hpp forbidden)
probe(cpu simulated/simulated_gpu_platform.hpp forbidden)
probe(simulated cpu/cpu_device.hpp forbidden)
probe(portable cpu/cpu_device.hpp forbidden)
probe(backends cpu/register_kernels.hpp allowed)
probe(backends simulated/simulated_gpu_spec.hpp allowed)
probe(backends portable/portable_kernels.hpp allowed)
