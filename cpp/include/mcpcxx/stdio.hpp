// stdio transport: newline-delimited JSON-RPC on stdin/stdout, reads and writes concurrent.
// Thread-safety: serve_* block the calling thread; they run an I/O thread for reading and
// writing while requests run on the server's worker pool.
#pragma once

#include <chrono>

#include "mcpcxx/server.hpp"

namespace mcpcxx {

/// stdio transport settings.
struct stdio_options {
  /// Move the process's fd 1 to a private descriptor and point fd 1 at stderr while serving, so
  /// stray writes to stdout cannot corrupt the stream. Restored on return.
  bool protect_stdout = true;
  /// How long to wait for in-flight requests after stdin EOF before cancelling them.
  std::chrono::milliseconds drain_grace{5000};
};

/// Serves stdin/stdout until EOF or EPIPE; returns 0 on a clean end, non-zero on an I/O failure.
int serve_stdio(server& srv, const stdio_options& options = {});

/// Serves on the given descriptors (tests); never closes them.
int serve_fds(server& srv, int in_fd, int out_fd, const stdio_options& options = {});

}  // namespace mcpcxx
