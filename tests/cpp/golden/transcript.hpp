// Golden transcripts: parsing, running a fixture server over stdio, and comparing.
// Format (txtar-like, shared with pytest, see tests/golden/README.md): prose lines, then sections
// introduced by "-- meta --" (required "fixtures: cpp python", "rows: P1 P2", optional
// "pending: why"), "-- env --" (optional KEY=VALUE lines), "-- client --" (raw lines sent as-is,
// one message per line) and "-- server --" (expected replies, one JSON value per line).
#pragma once

#include <string>
#include <vector>

#include "mcpcxx/json.hpp"

namespace mcpcxx::golden {

/// One transcript file.
struct transcript {
  std::string path;
  std::string prose;
  std::vector<std::string> fixtures;  ///< servers it runs against: "cpp", "python"
  std::vector<std::string> rows;      ///< situation-table rows it pins ("P1", "T3", ...)
  std::string pending;                ///< non-empty: left out of the default run, and why
  std::vector<std::string> env;       ///< KEY=VALUE
  std::vector<std::string> client;    ///< raw lines
  std::vector<json> server;           ///< expected replies
};

/// Parses a transcript file; throws std::runtime_error with the line number on bad syntax.
transcript load(const std::string& path);
/// Rewrites the server section of `t.path` with `replies` (MCPCXX_UPDATE_GOLDEN=1).
void save_server_section(const transcript& t, const std::vector<json>& replies);

/// How to start a fixture server: argv[0] is looked up in PATH when it has no '/'.
struct command {
  std::vector<std::string> argv;
  std::vector<std::string> env;  ///< KEY=VALUE added to the inherited environment
};

/// Runs `cmd` with `t.env`, writes the client lines, closes stdin, returns stdout lines.
/// `exit_code` receives the server's exit status (-1 when it did not exit normally).
std::vector<std::string> run(const command& cmd, const transcript& t, std::string& stderr_text,
                             int& exit_code);

/// Replaces volatile values (reference ids) so runs compare equal.
json normalize(json v);

/// Compares expected and actual messages: replies as a multiset (concurrent requests finish in
/// any order), notifications in order, batch arrays sorted by id. Returns "" or a description of
/// the first difference.
std::string compare(const std::vector<json>& expected, const std::vector<json>& actual);

}  // namespace mcpcxx::golden
