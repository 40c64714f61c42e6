# Layered libraries. Each layer is a static library that can see only its own headers and those of
# the layers below it: its sources compile against a per-layer include root in the build tree that
# holds symbolic links to exactly those folders of cpp/src and those public headers. An #include of
# a higher layer (or of a public header the layer may not use) therefore fails to compile.
#
# Layers link each other with $<LINK_ONLY:...> so no include path leaks upward; consumers get the
# whole public include folder from each layer's INTERFACE (and from the umbrella mcpcxx::mcpcxx).

set(MCPCXX_SRC_DIR "${PROJECT_SOURCE_DIR}/cpp/src")
set(MCPCXX_PUBLIC_DIR "${PROJECT_SOURCE_DIR}/cpp/include")
set(MCPCXX_GENERATED_INCLUDE_DIR "${PROJECT_BINARY_DIR}/generated/include")
set(MCPCXX_LAYER_ROOTS "${PROJECT_BINARY_DIR}/layer-roots")

# Links <root>/<relative> to <target>, creating parent folders; replaces a stale link.
function(_mcpcxx_link target root relative)
  get_filename_component(parent "${root}/${relative}" DIRECTORY)
  file(MAKE_DIRECTORY "${parent}")
  if(IS_SYMLINK "${root}/${relative}" OR EXISTS "${root}/${relative}")
    file(REMOVE "${root}/${relative}")
  endif()
  file(CREATE_LINK "${target}" "${root}/${relative}" SYMBOLIC)
endfunction()

# mcpcxx_layer(<name>
#   DIRS <folders of cpp/src, e.g. engine or transport/http>  # every file in them belongs here
#   GLOBS <globs relative to cpp/src, e.g. transport/stdio_*>   # single files that belong here
#   HEADERS <public headers under cpp/include/mcpcxx this layer may use, beyond its lower layers'>
#   LAYERS <lower layers>            # their folders and headers become visible; linked LINK_ONLY
#   LIBS <libraries linked PUBLIC>   PRIVATE_LIBS <build-only libraries, e.g. asio>)
# Defines the static library mcpcxx_<name>, exported as mcpcxx::<name>.
function(mcpcxx_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "DIRS;GLOBS;HEADERS;LAYERS;LIBS;PRIVATE_LIBS")
  set(dirs ${arg_DIRS})
  set(globs ${arg_GLOBS})
  set(headers ${arg_HEADERS})
  foreach(lower IN LISTS arg_LAYERS)
    get_property(lower_dirs GLOBAL PROPERTY MCPCXX_LAYER_${lower}_DIRS)
    get_property(lower_globs GLOBAL PROPERTY MCPCXX_LAYER_${lower}_GLOBS)
    get_property(lower_headers GLOBAL PROPERTY MCPCXX_LAYER_${lower}_HEADERS)
    list(APPEND dirs ${lower_dirs})
    list(APPEND globs ${lower_globs})
    list(APPEND headers ${lower_headers})
  endforeach()
  list(REMOVE_DUPLICATES dirs)
  list(REMOVE_DUPLICATES headers)
  set_property(GLOBAL PROPERTY MCPCXX_LAYER_${name}_DIRS ${dirs})
  set_property(GLOBAL PROPERTY MCPCXX_LAYER_${name}_GLOBS ${globs})
  set_property(GLOBAL PROPERTY MCPCXX_LAYER_${name}_HEADERS ${headers})

  set(root "${MCPCXX_LAYER_ROOTS}/${name}")
  file(REMOVE_RECURSE "${root}")
  foreach(dir IN LISTS dirs)
    _mcpcxx_link("${MCPCXX_SRC_DIR}/${dir}" "${root}" "${dir}")
  endforeach()
  foreach(glob IN LISTS globs)
    file(GLOB matched CONFIGURE_DEPENDS RELATIVE "${MCPCXX_SRC_DIR}" "${MCPCXX_SRC_DIR}/${glob}.hpp")
    foreach(header IN LISTS matched)
      _mcpcxx_link("${MCPCXX_SRC_DIR}/${header}" "${root}" "${header}")
    endforeach()
  endforeach()
  foreach(header IN LISTS headers)
    if(header STREQUAL "version.hpp")
      _mcpcxx_link("${MCPCXX_GENERATED_INCLUDE_DIR}/mcpcxx/version.hpp" "${root}" "mcpcxx/${header}")
    else()
      _mcpcxx_link("${MCPCXX_PUBLIC_DIR}/mcpcxx/${header}" "${root}" "mcpcxx/${header}")
    endif()
  endforeach()

  set(sources "")
  foreach(dir IN LISTS arg_DIRS)
    file(GLOB_RECURSE found CONFIGURE_DEPENDS "${MCPCXX_SRC_DIR}/${dir}/*.cpp"
         "${MCPCXX_SRC_DIR}/${dir}/*.hpp")
    list(APPEND sources ${found})
  endforeach()
  foreach(glob IN LISTS arg_GLOBS)
    file(GLOB found CONFIGURE_DEPENDS "${MCPCXX_SRC_DIR}/${glob}.cpp" "${MCPCXX_SRC_DIR}/${glob}.hpp")
    list(APPEND sources ${found})
  endforeach()
  list(FILTER sources INCLUDE REGEX "\\.cpp$")

  set(target mcpcxx_${name})
  add_library(${target} STATIC ${sources})
  add_library(mcpcxx::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  target_include_directories(${target}
    PRIVATE "${root}"
    INTERFACE $<BUILD_INTERFACE:${MCPCXX_PUBLIC_DIR}> $<BUILD_INTERFACE:${MCPCXX_GENERATED_INCLUDE_DIR}>
              $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_link_libraries(${target} PUBLIC ${arg_LIBS} PRIVATE $<BUILD_INTERFACE:mcpcxx_warnings>)
  foreach(lib IN LISTS arg_PRIVATE_LIBS)
    target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:${lib}>)
  endforeach()
  foreach(lower IN LISTS arg_LAYERS)
    target_link_libraries(${target} PUBLIC $<LINK_ONLY:mcpcxx_${lower}>)
  endforeach()
  set_property(GLOBAL APPEND PROPERTY MCPCXX_LAYER_TARGETS ${target})
endfunction()
