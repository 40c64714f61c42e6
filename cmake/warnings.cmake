# Project-wide warning and sanitizer flags, applied through the mcpcxx_warnings interface target.
add_library(mcpcxx_warnings INTERFACE)
# Designated initializers that leave members at their defaults are the public API's idiom
# (tool_spec{.name = ..., .description = ...}); GCC's -Wextra would flag every one of them.
target_compile_options(mcpcxx_warnings INTERFACE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
if(MCPCXX_WERROR)
  target_compile_options(mcpcxx_warnings INTERFACE -Werror)
endif()
if(MCPCXX_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
if(MCPCXX_SANITIZE_THREAD)
  # -O1: ThreadSanitizer's advice; -O0 makes the race-detecting runs several times slower.
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer -O1)
  add_link_options(-fsanitize=thread)
endif()
