// Golden transcripts: parsing, running a fixture server over stdio, and comparing.
// Format (txtar-like, shared with pytest, see tests/golden/README.md): prose lines, then sections
// introduced by "-- meta --" (required "fixtures: cpp python", "rows: P1 P2", optional
// "pending: why", "transport: http", "mask: REGEX", "signal: SIGTERM 2" and "lockstep: yes"),
// "-- env --" (optional KEY=VALUE lines), "-- answers --" (lockstep only: how the client answers
// server-to-client requests, see lockstep.hpp), "-- client --" (raw lines sent as-is, one message
// per line) and "-- server --" (expected replies, one JSON value per line).
#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

#include "mcpcxx/json.hpp"

namespace mcpcxx::golden {

/// How the client answers one server-to-client request ("-- answers --" line
/// `METHOD result JSON`, `METHOD error JSON` or `METHOD never`).
struct answer {
  std::string method;  ///< e.g. "elicitation/create"
  std::string kind;    ///< "result", "error" or "never" (no answer: the server's timeout runs)
  json value;          ///< the result or error object; null for "never"
};

/// One transcript file.
struct transcript {
  std::string path;
  std::string prose;
  std::vector<std::string> fixtures;  ///< servers it runs against: "cpp", "python"
  std::vector<std::string> rows;      ///< situation-table rows it pins ("P1", "T3", ...)
  std::string pending;                ///< non-empty: left out of the default run, and why
  std::string transport = "stdio";    ///< "stdio", or "http" (see http_runner.hpp)
  std::string mask;                   ///< non-empty: a regex whose matches are cut from strings
  /// stdio: "SIGTERM" or "SIGINT" to send once the server wrote `signal_after` messages (stdin
  /// stays open until the server exits: an EOF first would be a different stop); "" for none.
  std::string signal;
  std::size_t signal_after = 0;
  /// stdio: send each client request only after its reply came (lockstep.hpp), answering server
  /// requests from `answers`; needed for anything the client must react to.
  bool lockstep = false;
  std::vector<answer> answers;      ///< consumed in order per method
  std::vector<std::string> env;     ///< KEY=VALUE
  std::vector<std::string> client;  ///< raw lines (http: blank lines kept)
  std::vector<json> server;         ///< expected replies (http: {"status", "body"?} each)
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

/// A started fixture process: its pid and the parent's ends of its stdin, stdout and stderr.
struct process {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;
  std::string stderr_text;  ///< filled by finish() when spawning fails
  int exit_code = -1;
};

/// Starts `cmd` with the inherited environment, `cmd.env` and `t.env` (later ones win).
process spawn(const command& cmd, const transcript& t);
/// Closes stdin, reads stdout and stderr to EOF (30 s without output ends it), waits for the
/// process; returns stdout.
std::string finish(process& p, std::string& stderr_text, int& exit_code);

/// Runs `cmd` with `t.env`, writes the client lines, closes stdin (with `t.signal`: sends the
/// signal once `t.signal_after` lines were read, closes stdin when the server exited), returns
/// stdout lines.
/// `exit_code` receives the server's exit status (-1 when it did not exit normally).
std::vector<std::string> run(const command& cmd, const transcript& t, std::string& stderr_text,
                             int& exit_code);

/// `v` with every string "requestState" (sealed with a random nonce) as "{REQUEST_STATE}".
json mask_request_state(json v);

/// Replaces volatile values (reference ids; every string "requestState", sealed with a random
/// nonce, becomes "{REQUEST_STATE}") so runs compare equal.
json normalize(json v);

/// `v` with every match of the regex `mask` cut from its strings (keys untouched); `v` itself
/// when `mask` is empty. The transcript's prose says why its fixtures differ there.
json apply_mask(json v, const std::string& mask);

/// Compares expected and actual messages: replies as a multiset (concurrent requests finish in
/// any order), notifications in order, batch arrays sorted by id. Returns "" or a description of
/// the first difference.
std::string compare(const std::vector<json>& expected, const std::vector<json>& actual);

}  // namespace mcpcxx::golden
