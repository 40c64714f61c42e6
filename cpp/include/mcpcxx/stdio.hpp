// stdio transport: newline-delimited JSON-RPC on stdin/stdout, reads and writes concurrent.
// Thread-safety: serve_* block the calling thread; they run I/O threads for reading and writing
// while requests run on the server's worker pool (or, with stdio_options::inline_dispatch, on the
// reading thread). A reply is written by the thread that finished it when nothing else is queued.
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
  std::size_t max_outbound_bytes = std::size_t{16} * 1024 * 1024;
  /// Graceful drain on SIGTERM/SIGINT: stop reading, let in-flight requests finish within
  /// drain_grace, answer the rest with P27, flush, return 0. Installed only for a signal whose
  /// disposition is the default when serving starts (an application's own handler is kept);
  /// the previous disposition is restored on return. Default on.
  bool handle_signals = true;
  /// Opt-in: run every request handler on the transport's reading thread instead of the server's
  /// worker pool, so a call crosses no thread (the reply is written by the thread that built it).
  /// Only for servers whose handlers are all quick and never block: while one runs, stdin is not
  /// read, so later requests and notifications/cancelled wait for it to return (a per-tool
  /// deadline still answers on time, from the deadline thread). Default off.
  bool inline_dispatch = false;
  /// After everything read so far was answered (an inline reply, an engine refusal, a
  /// notification), the reading thread polls stdin this long for the client's next request
  /// before it sleeps, once per read. A sequential client's next request then finds it awake: no
  /// wake-up, which costs about 20 us on a virtual machine whose idle CPUs halt. Not while a
  /// request runs on the worker pool, and never on a single CPU. At most 10 ms; 0 turns it off.
  /// Default 50 us.
  std::chrono::microseconds request_poll{50};
};

/// The longest stdio_options::request_poll accepted.
inline constexpr std::chrono::microseconds k_max_request_poll{10000};

/// Serves stdin/stdout until EOF, EPIPE or SIGTERM/SIGINT; returns 0 on a clean end (EOF or a
/// drained signal), non-zero on an I/O failure (EPIPE included: logged once). Throws
/// std::invalid_argument, before serving, when an option is out of range.
int serve_stdio(server& srv, const stdio_options& options = {});

/// Serves on the given descriptors (tests); never closes them.
int serve_fds(server& srv, int in_fd, int out_fd, const stdio_options& options = {});

}  // namespace mcpcxx
