// stdio transport: newline-delimited JSON-RPC on stdin/stdout, reads and writes concurrent.
// Thread-safety: serve_* block the calling thread; they run an I/O thread for reading and
// writing while requests run on the server's worker pool.
#pragma once

#include <chrono>
#include <cstddef>

#include "mcpcxx/server.hpp"

namespace mcpcxx {

/// stdio transport settings.
struct stdio_options {
  /// Move the process's fd 1 to a private descriptor and point fd 1 at stderr while serving, so
  /// stray writes to stdout cannot corrupt the stream. Restored on return.
  bool protect_stdout = true;
  /// How long in-flight requests get to finish after stdin EOF, SIGTERM or SIGINT before they are
  /// cancelled: silently at EOF (the client is gone), answered with row P27 after a signal.
  /// Default 5 s.
  std::chrono::milliseconds drain_grace{5000};
  /// Limit (no error row: nothing is refused, reading pauses). Stop reading stdin while more
  /// than this many reply bytes wait to be written to stdout (a client that does not read its
  /// replies); resume once the queue drained to half of it. Default 16 MiB.
  std::size_t max_outbound_bytes = std::size_t{16} * 1024u * 1024u;
  /// Graceful drain on SIGTERM/SIGINT: stop reading, let in-flight requests finish within
  /// drain_grace, answer the rest with P27, flush, return 0. Installed only for a signal whose
  /// disposition is the default when serving starts (an application's own handler is kept);
  /// the previous disposition is restored on return. Default on.
  bool handle_signals = true;
};

/// Serves stdin/stdout until EOF, EPIPE or SIGTERM/SIGINT; returns 0 on a clean end (EOF or a
/// drained signal), non-zero on an I/O failure (EPIPE included: logged once).
int serve_stdio(server& srv, const stdio_options& options = {});

/// Serves on the given descriptors (tests); never closes them.
int serve_fds(server& srv, int in_fd, int out_fd, const stdio_options& options = {});

}  // namespace mcpcxx
