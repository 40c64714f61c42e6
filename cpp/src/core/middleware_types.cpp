// The public middleware types (mcpcxx/middleware.hpp) over the engine's exchange and outcomes.
#include <algorithm>
#include <stdexcept>

#include "mcpcxx/context.hpp"

#include "core/classify.hpp"
#include "core/method_table.hpp"
#include "core/middleware_chain.hpp"
#include "core/server_core.hpp"
#include "core/session_state.hpp"
#include "jsonrpc/splice.hpp"

namespace mcpcxx {

using detail::exchange;
using detail::method_outcome;
using detail::outcome_kind;

namespace {

const json k_null = nullptr;

// The string a method names its subject with: params.name, or params.uri for resources/read.
const json* subject_member(const exchange& ex) {
  const json& p = ex.params();
  if (!p.is_object()) return nullptr;
  const char* key = ex.method() == "resources/read" ? "uri" : "name";
  if (ex.method() != "tools/call" && ex.method() != "prompts/get" &&
      ex.method() != "resources/read") {
    return nullptr;
  }
  const auto it = p.find(key);
  return it != p.end() && it->is_string() ? &*it : nullptr;
}

}  // namespace

std::string_view middleware_request::method() const noexcept { return ex_->method(); }

std::string_view middleware_request::name() const noexcept {
  if (subject_ != nullptr) return *subject_;
  const json* s = subject_member(*ex_);
  return s == nullptr ? std::string_view{} : std::string_view(s->get_ref<const std::string&>());
}

const json& middleware_request::arguments() const noexcept {
  if (ex_->method() != "tools/call" && ex_->method() != "prompts/get") return k_null;
  const auto it = ex_->params().find("arguments");
  return it == ex_->params().end() ? k_null : *it;
}

const json& middleware_request::params() const noexcept { return ex_->params(); }

const json& middleware_request::meta() const noexcept {
  return ex_->facts.request_meta ? *ex_->facts.request_meta : k_null;
}

const json& middleware_request::principal() const noexcept { return ex_->middleware_principal(); }

std::string middleware_request::principal_identity() const {
  return ::mcpcxx::principal_identity(principal());
}

const json& middleware_request::http_headers() const noexcept {
  return ex_->facts.http_headers ? *ex_->facts.http_headers : k_null;
}

bool middleware_request::modern() const noexcept { return ex_->facts.modern; }

const std::string& middleware_request::protocol_version() const noexcept {
  return ex_->facts.version;
}

const json& middleware_request::tool_annotations() const noexcept {
  const auto& tool = ex_->middleware_tool();
  return tool ? tool->spec.annotations : k_null;
}

json& middleware_request::state() const { return ex_->middleware_state(); }

std::chrono::microseconds middleware_request::elapsed() const noexcept { return ex_->elapsed(); }

refusal refusal::forbidden(std::string reason) {
  if (reason.empty()) throw std::invalid_argument("refusal::forbidden: give the reason");
  return {"P58", {{"reason", std::move(reason)}}};
}

refusal refusal::rate_limited(std::string limit, std::chrono::milliseconds retry_after) {
  if (limit.empty()) throw std::invalid_argument("refusal::rate_limited: name the limit");
  const auto ms = std::max<std::int64_t>(retry_after.count(), 1);
  return {"P59", {{"limit", std::move(limit)}, {"retryAfterSeconds", (ms + 999) / 1000}}};
}

refusal refusal::too_large(std::size_t bytes, std::size_t limit_bytes, std::string ask_less) {
  // null, not absent, without advice: the rows' data always has "askLess"
  return {"P60",
          {{"bytes", bytes},
           {"limitBytes", limit_bytes},
           {"askLess", ask_less.empty() ? json(nullptr) : json(std::move(ask_less))}}};
}

std::string_view refusal::category() const noexcept {
  if (row_ == "P58") return "permission_denied";
  if (row_ == "P59") return "rate_limited";
  return "invalid_arguments";
}

middleware_reply::middleware_reply() = default;
middleware_reply::middleware_reply(middleware_reply&&) noexcept = default;
middleware_reply& middleware_reply::operator=(middleware_reply&&) noexcept = default;
middleware_reply::~middleware_reply() = default;

middleware_reply middleware_reply::with_result(json result) {
  if (!result.is_object()) {
    throw std::invalid_argument("middleware_reply::with_result: the result must be a JSON object");
  }
  return detail::middleware_access::wrap(method_outcome::ok(std::move(result)));
}

middleware_reply middleware_reply::with_tool_error(const tool_error& error) {
  middleware_reply r;
  r.tool_error_ = std::make_shared<const tool_error>(error);  // rendered per method on the way out
  return r;
}

middleware_reply middleware_reply::with_refusal(refusal r) {
  middleware_reply m;
  m.refusal_ = std::move(r);
  return m;
}

middleware_reply::kind middleware_reply::what() const noexcept {
  if (tool_error_) return kind::tool_error;
  if (refusal_) return kind::protocol_error;
  switch (outcome_->kind) {
    case outcome_kind::result:
    case outcome_kind::cached_page:
      return kind::result;
    case outcome_kind::tool_failure:
      return kind::tool_error;
    case outcome_kind::protocol_error:
      return kind::protocol_error;
    default:
      return kind::other;
  }
}

std::string_view middleware_reply::kind_name() const noexcept {
  switch (what()) {
    case kind::result:
      return "result";
    case kind::tool_error:
      return "tool_error";
    case kind::protocol_error:
      return "protocol_error";
    default:
      return "other";
  }
}

bool middleware_reply::is_error() const noexcept {
  const kind k = what();
  return k == kind::tool_error || k == kind::protocol_error;
}

std::string_view middleware_reply::row() const noexcept {
  if (tool_error_) return {};
  if (refusal_) return refusal_->row();
  return outcome_->row_id;
}

std::string_view middleware_reply::category() const noexcept {
  if (tool_error_) return to_string(tool_error_->category());
  if (refusal_) return refusal_->category();
  return outcome_->category;
}

json middleware_reply::result() const {
  if (refusal_ || tool_error_) return nullptr;
  switch (outcome_->kind) {
    case outcome_kind::result:
      return outcome_->result;
    case outcome_kind::cached_page:
      return json::parse(*outcome_->page);
    case outcome_kind::tool_failure:
      return outcome_->full_result();
    default:
      return nullptr;
  }
}

std::size_t middleware_reply::result_bytes() const {
  if (refusal_ || tool_error_) return 0;
  switch (outcome_->kind) {
    case outcome_kind::result:
      return jsonrpc::serialize_value(outcome_->result).size();
    case outcome_kind::cached_page:
      return outcome_->page->size();
    case outcome_kind::tool_failure:
      return jsonrpc::serialize_value(outcome_->full_result()).size();
    default:
      return 0;
  }
}

}  // namespace mcpcxx
