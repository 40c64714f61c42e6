// Multi-round-trip inputs of one modern request: opening requestState, answering questions,
// sealing the answers so far when the run stops.
#include "core/input_round.hpp"

#include <stdexcept>

#include "mcpcxx/errors.hpp"

#include "core/server_core.hpp"
#include "core/session_state.hpp"
#include "core/wire_errors.hpp"
#include "state/codec.hpp"

namespace mcpcxx::detail {

namespace {

// The client capability that covers a question's method; empty for a method outside the spec.
std::string_view input_capability_of(std::string_view method) {
  if (method == "elicitation/create") return "elicitation";
  if (method == "sampling/createMessage") return "sampling";
  if (method == "roots/list") return "roots";
  return {};
}

bool has_string(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string();
}

// Whether `answer` has the shape of the result `method` expects (else the question is asked
// again rather than handing the handler something it cannot use).
bool fits_in_round(std::string_view method, const json& answer) {
  if (!answer.is_object()) return false;
  if (method == "elicitation/create") {
    if (!has_string(answer, "action")) return false;
    const auto& a = answer.at("action");
    return a == "accept" || a == "decline" || a == "cancel";
  }
  if (method == "sampling/createMessage") {
    return has_string(answer, "role") && answer.contains("content") && has_string(answer, "model");
  }
  if (method == "roots/list") return answer.contains("roots") && answer.at("roots").is_array();
  return true;
}

std::string question_digest(const client_request& q) {
  const json j = {{"method", q.method}, {"params", q.params}};
  return state::base64url_encode(
      state::sha256(j.dump(-1, ' ', false, json::error_handler_t::replace)));
}

method_outcome wrong_type(const char* subject, const char* expected, const json& got) {
  return method_outcome::protocol(situation::P15b_param_invalid,
                                  wire::param_invalid_args(subject, expected, &got));
}

method_outcome refusal_outcome(server_core& e, std::string_view method,
                               const state::open_result& r) {
  e.log().write(
      "warning", "request_state_refused",
      {{"method", std::string(method)}, {"reason", std::string(state::to_string(r.why))}});
  switch (r.why) {
    case state::refusal::expired:
      return method_outcome::protocol(
          situation::P35_request_state_expired,
          {{"expiredForS", r.expired_for_s}, {"ttlS", e.request_states().ttl().count()}});
    case state::refusal::other_method:
      return method_outcome::protocol(situation::P36_request_state_other_method,
                                      {{"sealedMethod", r.sealed_method}, {"method", method}});
    case state::refusal::other_params:
      return method_outcome::protocol(situation::P37_request_state_other_params,
                                      {{"method", method}});
    case state::refusal::other_principal:
      return method_outcome::protocol(situation::P38_request_state_other_principal);
    case state::refusal::malformed:
    case state::refusal::not_authentic:
      break;
  }
  return method_outcome::protocol(situation::P34_request_state_not_authentic);
}

json object_member(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : json::object();
}

}  // namespace

bool may_require_input(std::string_view method) noexcept {
  return method == "tools/call" || method == "prompts/get" || method == "resources/read";
}

input_round::opened input_round::open(const std::shared_ptr<exchange>& ex) {
  const json& params = ex->params();
  json fresh;
  if (const auto it = params.find("inputResponses"); it != params.end()) {
    if (!it->is_object()) {
      return wrong_type("params.inputResponses", "an object mapping inputRequests keys to results",
                        *it);
    }
    fresh = *it;
  }
  const auto state = params.find("requestState");
  if (state == params.end()) {
    if (fresh.is_null()) return std::shared_ptr<input_round>();  // exchange::round() opens it
    return std::make_shared<input_round>(ex, std::nullopt, std::move(fresh), json(), json());
  }
  if (!state->is_string()) {
    return wrong_type("params.requestState", "the string a previous InputRequiredResult returned",
                      *state);
  }
  state::binding b = state::bind_request(ex->method(), params, ex->session().identity());
  server_core& e = ex->core();
  const state::open_result r =
      e.request_states().open(state->get<std::string>(), b, state::sealer::clock::now());
  if (!r.ok) return refusal_outcome(e, ex->method(), r);
  return std::make_shared<input_round>(ex, std::move(b), std::move(fresh),
                                       object_member(r.payload, "a"),
                                       object_member(r.payload, "q"));
}

input_round::input_round(const std::shared_ptr<exchange>& ex, std::optional<state::binding> binding,
                         json fresh, json sealed_answers, json sealed_asked)
    : exchange_(ex),
      binding_(std::move(binding)),
      fresh_(std::move(fresh)),
      sealed_answers_(std::move(sealed_answers)),
      sealed_asked_(std::move(sealed_asked)) {}

std::vector<json> input_round::ask(const std::vector<client_request>& questions) {
  const std::shared_ptr<exchange> ex = exchange_.lock();
  if (!ex) {
    throw std::logic_error("a handler asked the client after its request had ended");
  }
  const json& caps = ex->facts.client_capabilities;
  std::lock_guard lock(mutex_);
  std::vector<json> answers;
  json pending = json::object();
  for (const client_request& q : questions) {
    const std::string_view cap = input_capability_of(q.method);
    if (!cap.empty() &&
        !(caps.is_object() && caps.contains(cap) && caps.at(std::string(cap)).is_object())) {
      throw client_capability_error(q.method, std::string(cap));
    }
    const std::string key = q.key.empty() ? "ask-" + std::to_string(position_) : q.key;
    ++position_;
    const std::string digest = question_digest(q);
    if (const auto it = asked_now_.find(key); it != asked_now_.end() && *it != digest) {
      throw std::logic_error("the input request key '" + key +
                             "' was used for two different questions in one run");
    }
    asked_now_[key] = digest;
    if (const json* a = answer_for(key, q.method, digest)) {
      used_[key] = *a;
      answers.push_back(*a);
    } else {
      pending[key] = {{"method", q.method}, {"params", q.params}};
    }
  }
  if (!pending.empty()) throw input_required_signal{std::move(pending), seal(*ex)};
  return answers;
}

// This retry's answer first (a client may correct itself), then the sealed one.
const json* input_round::answer_for(const std::string& key, const std::string& method,
                                    const std::string& digest) const {
  const auto asked = sealed_asked_.find(key);
  const bool same_question = asked != sealed_asked_.end() && *asked == digest;
  const bool unrecorded = asked == sealed_asked_.end();
  if (const auto it = fresh_.find(key);
      it != fresh_.end() && (same_question || unrecorded) && fits_in_round(method, *it)) {
    return &*it;
  }
  if (const auto it = sealed_answers_.find(key); it != sealed_answers_.end() && same_question) {
    return &*it;
  }
  return nullptr;
}

std::string input_round::seal(const exchange& ex) {
  if (!binding_) {
    binding_ = state::bind_request(ex.method(), ex.params(), ex.session().identity());
  }
  const auto or_empty = [](const json& j) { return j.is_null() ? json::object() : j; };
  return ex.core().request_states().seal(*binding_,
                                         {{"a", or_empty(used_)}, {"q", or_empty(asked_now_)}},
                                         state::sealer::clock::now());
}

method_outcome input_required_outcome(input_required_signal s) {
  method_outcome o = method_outcome::ok({{"inputRequests", std::move(s.input_requests)},
                                         {"requestState", std::move(s.request_state)}});
  o.kind = outcome_kind::input_required;
  o.category = "input_required";
  return o;
}

}  // namespace mcpcxx::detail
