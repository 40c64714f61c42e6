// Include before any asio header in code that may be compiled outside mcpcxx_core (tests,
// benchmarks): the same configuration macros the library is built with, so asio types agree.
#pragma once

#ifndef ASIO_STANDALONE
#define ASIO_STANDALONE
#endif
#ifndef ASIO_NO_DEPRECATED
#define ASIO_NO_DEPRECATED
#endif
