// Lockstep stdio runs ("lockstep: yes"): the runner plays a client that reacts to the server.
// Each client line is sent on its own; a request (an object with "id" and "method", or a batch)
// waits for its reply before the next line goes out, so the server's own request ids and the
// order of everything it writes are deterministic. Meanwhile every server-to-client request
// (elicitation/create, sampling/createMessage, roots/list) is answered from the transcript's
// answers section, in order per method: a result, a JSON-RPC error, or never (the server's
// client_request_timeout then runs). Client lines may use:
//   {REQUEST_STATE}  replaced by the requestState of the latest reply that carried one;
//   @align           (a whole line, not sent) sleep until 250 ms past the next whole second of
//                    the wall clock: requestState expiry counts whole seconds (row P35).
// Thread-safety: none needed; one call runs one process on the calling thread.
#pragma once

#include <string>
#include <vector>

#include "transcript.hpp"

namespace mcpcxx::golden {

/// Runs `t` in lockstep against `cmd`; returns the server's stdout lines. `problem` receives why
/// the run could not follow the transcript ("" when it could): a server request with no answer
/// left, {REQUEST_STATE} before any state, or a reply that did not come within 30 s.
std::vector<std::string> run_lockstep(const command& cmd, const transcript& t,
                                      std::string& stderr_text, int& exit_code,
                                      std::string& problem);

}  // namespace mcpcxx::golden
