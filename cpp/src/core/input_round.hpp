// 2026-07-28 multi-round-trip requests (SEP-2322): tools/call, prompts/get and resources/read may
// answer {"resultType":"input_required","inputRequests":{key: {method, params}},"requestState":s};
// the client retries with a new id, inputResponses (same keys) and the echoed requestState.
//
// How a handler resumes: it is RE-RUN from the start on every retry. Its questions are keyed by
// the key the author gives (client_request::key) or else by position in the run ("ask-0",
// "ask-1", ...). A question whose key has an answer gets it back at once; the first unanswered
// one stops the run by throwing input_required_signal, which the classifier turns into the
// input_required outcome listing every question of that ask, with the answers so far sealed in
// requestState (state/sealer.hpp). Effects before a question must therefore be safe to repeat.
//
// Which answers count: an answer from this retry's inputResponses, or one sealed in requestState,
// for the question asked under its key. requestState records a digest of every question asked
// so far; an answer whose key was asked for another question (the handler's questions changed
// between runs) is ignored and the question asked again. A fresh answer whose key no state
// records is accepted (a client may answer before being asked: the answers come from the client
// either way). An answer of the wrong shape for its method is ignored and the question asked
// again (a new InputRequiredResult, never an error). Extra answers are ignored.
//
// Thread-safety: one input_round per request; ask() may be called from any thread the handler
// uses, a mutex serializes it.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "mcpcxx/context.hpp"
#include "mcpcxx/json.hpp"

#include "core/exchange.hpp"
#include "state/sealer.hpp"

namespace mcpcxx::detail {

/// Stops a handler's run at its first unanswered question. Deliberately NOT a std::exception:
/// a handler's `catch (const std::exception&)` must not swallow it (a `catch (...)` must
/// rethrow). The classifier turns it into the input_required outcome.
struct input_required_signal {
  json input_requests;        ///< {key: {method, params}}: the unanswered questions
  std::string request_state;  ///< the sealed answers so far
};

/// True for the methods that may answer with an InputRequiredResult.
bool may_require_input(std::string_view method) noexcept;

/// The inputs of one run of a modern tools/call, prompts/get or resources/read request.
class input_round {
 public:
  /// What open() yields: the round, or the refusal to send instead of running the handler.
  using opened = std::variant<std::shared_ptr<input_round>, method_outcome>;

  /// Reads params.inputResponses and params.requestState of `ex`, a modern tools/call,
  /// prompts/get or resources/read; null when it has neither (exchange::round() opens an empty
  /// round on the first question). Refusals: P15b when either has the wrong type, P34..P38 when
  /// the state does not open for this request (logged with the reason). The request's params
  /// must stay intact while the round lives: a fresh request's binding is digested from them
  /// only when a run is sealed, so a call that asks nothing never pays for the digest.
  static opened open(const std::shared_ptr<exchange>& ex);
  /// The answers to `questions`, in order. Throws client_capability_error (nothing is put to
  /// the client) for a method whose capability the request's _meta did not declare, and
  /// input_required_signal when any question is unanswered (all of this call's unanswered
  /// questions are listed together).
  std::vector<json> ask(const std::vector<client_request>& questions);

  /// A round of `ex`; `binding` is set when a presented requestState was checked against it.
  input_round(const std::shared_ptr<exchange>& ex, std::optional<state::binding> binding,
              json fresh, json sealed_answers, json sealed_asked);

 private:
  const json* answer_for(const std::string& key, const std::string& method,
                         const std::string& digest) const;
  std::string seal(const exchange& ex);

  // Weak: the exchange owns the round; a handler that asks after its request ended is refused.
  std::weak_ptr<exchange> exchange_;
  std::optional<state::binding> binding_;  // computed on the first seal of a fresh request
  json fresh_;                             // this retry's inputResponses (null: none)
  json sealed_answers_;                    // answers carried in requestState (null: none)
  json sealed_asked_;  // key -> digest of the question asked under it in earlier runs
  std::mutex mutex_;
  std::size_t position_ = 0;  // questions asked so far in this run
  json used_;                 // answers handed to the handler in this run (null: none yet)
  json asked_now_;            // key -> digest, questions of this run (null: none yet)
};

/// The outcome for a stopped run: resultType input_required (decorated by the exchange).
method_outcome input_required_outcome(input_required_signal s);

}  // namespace mcpcxx::detail
