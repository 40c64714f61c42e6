# Third-party dependencies, all from Debian packages (see scripts/setup.sh). Nothing is downloaded.
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
# libcrypto (libssl-dev) seals requestState with AES-256-GCM (cpp/src/state); libssl is the TLS of
# rediss:// (cpp/src/redis).
find_package(OpenSSL REQUIRED COMPONENTS Crypto SSL)

# hiredis (libhiredis-dev), only its RESP codec (cpp/src/redis): the static archive, linked into
# the redis layer privately, so nothing built from this tree needs libhiredis.so at run time.
find_path(MCPCXX_HIREDIS_INCLUDE_DIR hiredis/hiredis.h REQUIRED)
find_library(MCPCXX_HIREDIS_ARCHIVE NAMES libhiredis.a REQUIRED)

# Standalone asio (libasio-dev) ships headers only.
find_path(ASIO_INCLUDE_DIR asio.hpp REQUIRED)
add_library(mcpcxx_asio INTERFACE)
target_include_directories(mcpcxx_asio SYSTEM INTERFACE ${ASIO_INCLUDE_DIR})
# ASIO_DISABLE_STD_ALIGNED_ALLOC: asio 1.22 mixes operator new and free in its handler recycling
# allocator when aligned_alloc is enabled, which AddressSanitizer reports (alloc-dealloc-mismatch).
target_compile_definitions(mcpcxx_asio INTERFACE ASIO_STANDALONE ASIO_NO_DEPRECATED
                                                 ASIO_DISABLE_STD_ALIGNED_ALLOC)
target_link_libraries(mcpcxx_asio INTERFACE Threads::Threads)

# llhttp's C sources as shipped by node-llhttp, compiled into our library (never vendored).
set(MCPCXX_LLHTTP_DIR "/usr/share/llhttp" CACHE PATH "Folder with llhttp's C sources and llhttp.h")
set(MCPCXX_LLHTTP_INCLUDE_DIR "/usr/share/include/llhttp" CACHE PATH "Folder with llhttp.h")
