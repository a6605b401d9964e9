# Note [Rooms]
# ~~~~~~~~~~~~
# The library's sources live in rooms: src/<room>/, and src/backends/<room>/ for the backends
# ("core" is the public value types' implementation: Tensor, Shape, DType, device names,
# formatting; "backends" is src/backends/registry.cpp). Each room declares the rooms its files
# may include (as target_link_libraries does for targets): PUBLIC ones its headers
# include too, PRIVATE ones only its sources. A source file is compiled with one include folder,
# build/rooms/<room>/, which holds links to its own room, the rooms it declares, and what those
# rooms' headers include (their PUBLIC rooms, transitively), and nothing else: no folder of
# src/ is an include folder of eagle. An include that crosses a wall the table forbids fails to
# compile ("distribute/strategy_runtime.hpp: No such file or directory"). docs/design.md draws
# the rooms and their floors; changing an arrow is a change to this table, reviewed as one.
#
# The one arrow that still climbs (a room including one above it) is marked "climbs".

set(EAGLE_ROOMS
  core opdefs memory random initializers runtime kernels cpu simulated cuda portable backends ops
  autodiff variables optimizers io data cluster distribute keras)
# The backends live side by side in src/backends/<room>/ (Note [Backend registry]); "backends" is
# the composition root, src/backends/registry.cpp.
set(EAGLE_BACKEND_ROOMS cpu simulated cuda portable)

# Floor 1: the value types' implementation, and leaves.
set(eagle_room_core_PRIVATE runtime)  # climbs: Tensor's members reach their TensorImpl
set(eagle_room_opdefs_PUBLIC)
set(eagle_room_memory_PUBLIC)
set(eagle_room_random_PUBLIC)
set(eagle_room_initializers_PUBLIC)
# Floor 2: the runtime (dispatcher, placer, kernel table, devices, config).
# It names no backend: it asks the composition root (Note [Backend registry]).
set(eagle_room_runtime_PUBLIC memory opdefs)
# Floor 3: what kernels share (functors, registration), then the backends side by side, then the
# composition root that names them all.
set(eagle_room_kernels_PUBLIC opdefs runtime)
set(eagle_room_cpu_PUBLIC kernels memory opdefs runtime)
set(eagle_room_simulated_PUBLIC memory runtime)
set(eagle_room_simulated_PRIVATE opdefs)
set(eagle_room_cuda_PUBLIC kernels memory runtime)
set(eagle_room_cuda_PRIVATE opdefs)
set(eagle_room_portable_PUBLIC runtime)
set(eagle_room_portable_PRIVATE kernels opdefs)
set(eagle_room_backends_PRIVATE cpu cuda portable runtime simulated)
# Floor 3: the ops' front-ends.
set(eagle_room_ops_PUBLIC opdefs runtime)
set(eagle_room_ops_PRIVATE core)
# Floor 4: variables and gradients (one floor: a tape records variable reads, a variable's
# assignment is a recorded op).
set(eagle_room_autodiff_PUBLIC opdefs runtime variables)
set(eagle_room_autodiff_PRIVATE ops)
set(eagle_room_variables_PRIVATE autodiff core ops runtime)
# Floor 5: optimizers, data, files.
set(eagle_room_optimizers_PRIVATE core opdefs runtime variables)
set(eagle_room_io_PRIVATE data)
set(eagle_room_data_PUBLIC runtime)
set(eagle_room_data_PRIVATE io)
# Floor 6: distribution (Note [One distribution interface]) and Keras.
# The cluster runtime (servers, the transport: Note [Cluster transport]) under the strategies.
set(eagle_room_cluster_PRIVATE core runtime)
set(eagle_room_distribute_PUBLIC variables)
set(eagle_room_distribute_PRIVATE cluster core cuda data runtime)
set(eagle_room_keras_PUBLIC io)
set(eagle_room_keras_PRIVATE core runtime)

# The rooms whose headers a file of `room` can reach: its own, its declared rooms, and their
# PUBLIC rooms, transitively.
function(eagle_room_reach room out)
  set(reach ${room} ${eagle_room_${room}_PUBLIC} ${eagle_room_${room}_PRIVATE})
  set(queue ${eagle_room_${room}_PUBLIC} ${eagle_room_${room}_PRIVATE})
  while(queue)
    list(POP_FRONT queue next)
    foreach(public IN LISTS eagle_room_${next}_PUBLIC)
      if(NOT public IN_LIST reach)
        list(APPEND reach ${public})
        list(APPEND queue ${public})
      endif()
    endforeach()
  endwhile()
  list(REMOVE_DUPLICATES reach)
  set(${out} ${reach} PARENT_SCOPE)
endfunction()

# Where a room's files are: src/backends/<room>/ for a backend, src/<room>/ for the others.
function(eagle_room_folder room out)
  if(room IN_LIST EAGLE_BACKEND_ROOMS)
    set(${out} ${PROJECT_SOURCE_DIR}/src/backends/${room} PARENT_SCOPE)
  elseif(room STREQUAL "backends")
    set(${out} ${PROJECT_SOURCE_DIR}/src/backends PARENT_SCOPE)
  else()
    set(${out} ${PROJECT_SOURCE_DIR}/src/${room} PARENT_SCOPE)
  endif()
endfunction()

# build/rooms/<room>/: links to the folders the room reaches.
function(eagle_make_room_tree room out)
  set(tree ${PROJECT_BINARY_DIR}/rooms/${room})
  file(REMOVE_RECURSE ${tree})
  file(MAKE_DIRECTORY ${tree})
  eagle_room_reach(${room} reach)
  foreach(reached IN LISTS reach)
    eagle_room_folder(${reached} folder)
    if(NOT reached STREQUAL "cuda")
      file(CREATE_LINK ${folder} ${tree}/${reached} SYMBOLIC)
    endif()
  endforeach()
  set(dirs ${tree})
  if("cuda" IN_LIST reach)
    eagle_room_folder(cuda cuda_folder)
    list(APPEND dirs ${cuda_folder})  # its headers are included by bare names
  endif()
  set(${out} ${dirs} PARENT_SCOPE)
endfunction()

# Gives every C++ and CUDA source of `target` (and of the CPU variant object libraries, which
# compile some of them again) its room's include folder. A source outside every room is an error.
function(eagle_enforce_rooms target)
  foreach(room IN LISTS EAGLE_ROOMS)
    eagle_make_room_tree(${room} room_dirs_${room})
  endforeach()
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  foreach(source IN LISTS sources)
    if(NOT source MATCHES "\\.(cpp|cu)$")
      continue()
    endif()
    get_filename_component(path ${source} ABSOLUTE BASE_DIR ${source_dir})
    file(RELATIVE_PATH relative ${PROJECT_SOURCE_DIR} ${path})
    if(relative MATCHES "^src/backends/([^/]+)/")
      set(room ${CMAKE_MATCH_1})
    elseif(relative MATCHES "^src/backends/[^/]+$")
      set(room backends)  # the composition root
    elseif(relative MATCHES "^src/([^/]+)/")
      set(room ${CMAKE_MATCH_1})
    else()
      message(FATAL_ERROR "${relative}: a source of ${target} outside every room (Note [Rooms])")
    endif()
    if(NOT room IN_LIST EAGLE_ROOMS)
      message(FATAL_ERROR "${relative}: room '${room}' is not in EAGLE_ROOMS (Note [Rooms])")
    endif()
    set_property(SOURCE ${path} TARGET_DIRECTORY ${target} APPEND
                 PROPERTY INCLUDE_DIRECTORIES ${room_dirs_${room}})
  endforeach()
endfunction()
