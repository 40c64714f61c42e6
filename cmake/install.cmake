# Install rules: static libraries, public headers (with the generated version.hpp), the CMake
# package (mcpcxxConfig.cmake, its version file, mcpcxxTargets.cmake) and the pkg-config file.
include(CMakePackageConfigHelpers)

set(MCPCXX_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/mcpcxx" CACHE STRING
    "Where mcpcxxConfig.cmake is installed, relative to the prefix")
set(MCPCXX_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig" CACHE STRING
    "Where mcpcxx.pc is installed, relative to the prefix")

install(TARGETS ${MCPCXX_LAYER_TARGETS} mcpcxx_llhttp mcpcxx
        EXPORT mcpcxxTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${MCPCXX_PUBLIC_DIR}/mcpcxx ${MCPCXX_GENERATED_INCLUDE_DIR}/mcpcxx
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
install(EXPORT mcpcxxTargets NAMESPACE mcpcxx:: DESTINATION ${MCPCXX_INSTALL_CMAKEDIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/mcpcxxConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/mcpcxxConfig.cmake
                              INSTALL_DESTINATION ${MCPCXX_INSTALL_CMAKEDIR})
# 0.x releases make no compatibility promise across minor versions (semantic versioning).
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(MCPCXX_COMPATIBILITY SameMinorVersion)
else()
  set(MCPCXX_COMPATIBILITY SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mcpcxxConfigVersion.cmake
                                 COMPATIBILITY ${MCPCXX_COMPATIBILITY})
install(FILES ${PROJECT_BINARY_DIR}/mcpcxxConfig.cmake ${PROJECT_BINARY_DIR}/mcpcxxConfigVersion.cmake
        DESTINATION ${MCPCXX_INSTALL_CMAKEDIR})

# pkg-config: libraries highest layer first, as a static link needs them; prefix found relative
# to the .pc file so `cmake --install --prefix` anywhere gives a working file.
set(MCPCXX_PC_LIBS "")
get_property(MCPCXX_PC_LAYERS GLOBAL PROPERTY MCPCXX_LAYER_TARGETS)  # lowest first
list(REVERSE MCPCXX_PC_LAYERS)
foreach(target IN LISTS MCPCXX_PC_LAYERS ITEMS mcpcxx_llhttp)
  if(TARGET ${target})
    string(APPEND MCPCXX_PC_LIBS " -l${target}")
  endif()
endforeach()
# The redis layer's hiredis codec (linked privately, so a static link names it), and its TLS
# library unless that is loaded on first use (MCPCXX_LAZY_LIBCRYPTO).
if(TARGET mcpcxx_redis)
  string(APPEND MCPCXX_PC_LIBS " -lhiredis")
  if(NOT MCPCXX_LAZY_LIBCRYPTO)
    string(APPEND MCPCXX_PC_LIBS " -lssl")
  endif()
endif()
if(MCPCXX_LAZY_LIBCRYPTO)
  if(CMAKE_DL_LIBS)  # dlopen; libcrypto itself is loaded at run time
    string(APPEND MCPCXX_PC_LIBS " -l${CMAKE_DL_LIBS}")
  endif()
else()
  string(APPEND MCPCXX_PC_LIBS " -lcrypto")
endif()
string(STRIP "${MCPCXX_PC_LIBS}" MCPCXX_PC_LIBS)
file(RELATIVE_PATH MCPCXX_PC_PREFIX_FROM_PCDIR "/prefix/${MCPCXX_INSTALL_PKGCONFIGDIR}" "/prefix")
configure_file(${PROJECT_SOURCE_DIR}/cmake/mcpcxx.pc.in ${PROJECT_BINARY_DIR}/mcpcxx.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/mcpcxx.pc DESTINATION ${MCPCXX_INSTALL_PKGCONFIGDIR})
