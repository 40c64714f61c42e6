// The built-in middleware (mcpcxx/middleware.hpp): rate limit, size limit, audit, authorize.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "mcpcxx/middleware.hpp"

#include "core/iso_time.hpp"
#include "core/middleware_chain.hpp"
#include "core/server_core.hpp"
#include "middleware/digest.hpp"

namespace mcpcxx {

namespace {

using detail::middleware_access;

std::string trimmed_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// "at most 5 requests at once, then 2 per second per caller" or, below one a second, "at most
// 1 request at once, then 1 every 1000 s per tool".
std::string describe(const rate_limit_options& o) {
  if (!o.description.empty()) return o.description;
  static constexpr const char* k_per[] = {"per caller", "per tool", "per caller and tool"};
  const std::string burst = trimmed_number(o.burst) + (o.burst == 1 ? " request" : " requests");
  const std::string rate = o.per_second >= 1 ? trimmed_number(o.per_second) + " per second"
                                             : "1 every " + trimmed_number(1 / o.per_second) + " s";
  return "at most " + burst + " at once, then " + rate + " " + k_per[static_cast<int>(o.per)];
}

std::string identity_or_anonymous(const middleware_request& r) {
  std::string id = r.principal_identity();
  return id.empty() ? std::string("anonymous") : id;
}

// The bucket of request `r`: "" exempts it.
std::string bucket_key(const rate_limit_options& o, const middleware_request& r) {
  if (o.key) {
    std::string k = o.key(r);
    return k.empty() ? k : "key:" + k;
  }
  const std::string subject = std::string(r.method()) + " " + std::string(r.name());
  switch (o.per) {
    case rate_key::principal:
      return "p:" + identity_or_anonymous(r);
    case rate_key::tool:
      return "t:" + subject;
    default:
      return "pt:" + identity_or_anonymous(r) + "\n" + subject;
  }
}

bool read_only(const middleware_request& r) {
  const json& a = r.tool_annotations();
  return a.is_object() && a.value("readOnlyHint", false) == true;
}

}  // namespace

middleware rate_limit(rate_limit_options o) {
  if (!(o.burst >= 1)) throw std::invalid_argument("rate_limit: burst must be at least 1");
  if (!(o.per_second > 0)) throw std::invalid_argument("rate_limit: per_second must be above 0");
  middleware m{.name = o.name, .methods = o.methods, .tools = o.tools};
  const std::string limit = describe(o);
  const detail::bucket_rule rule{o.burst, o.per_second};
  m.before = [o = std::move(o), limit,
              rule](const middleware_request& r) -> std::optional<middleware_reply> {
    const std::string key = bucket_key(o, r);
    if (key.empty()) return std::nullopt;
    auto& core = middleware_access::exchange_of(r).core();
    const auto wait = core.buckets().take(o.name + ":" + key, rule);
    if (wait.count() == 0) return std::nullopt;
    return middleware_reply::with_refusal(refusal::rate_limited(limit, wait));
  };
  return m;
}

middleware size_limit(size_limit_options o) {
  if (o.max_bytes == 0) throw std::invalid_argument("size_limit: max_bytes must be above 0");
  middleware m{.name = "size_limit", .methods = std::move(o.methods), .tools = std::move(o.tools)};
  m.after = [max = o.max_bytes, ask = std::move(o.ask_less)](
                const middleware_request&,
                const middleware_reply& reply) -> std::optional<middleware_reply> {
    if (reply.what() != middleware_reply::kind::result) return std::nullopt;
    const std::size_t bytes = reply.result_bytes();
    if (bytes <= max) return std::nullopt;
    return middleware_reply::with_refusal(refusal::too_large(bytes, max, ask));
  };
  return m;
}

middleware audit(audit_options o) {
  if (!o.sink) throw std::invalid_argument("audit: give a sink for the audit lines");
  middleware m{.name = "audit", .methods = {"tools/call"}, .tools = std::move(o.tools)};
  m.after = [sink = std::move(o.sink), all = o.read_only_too](
                const middleware_request& r,
                const middleware_reply& reply) -> std::optional<middleware_reply> {
    if (!all && read_only(r)) return std::nullopt;
    json line = {{"ts", detail::iso8601(std::chrono::system_clock::now())},
                 {"principal", r.principal_identity()},
                 {"tool", std::string(r.name())},
                 {"argumentsDigest", detail::arguments_digest(r.arguments())},
                 {"outcome", reply.what() == middleware_reply::kind::result ? std::string_view("ok")
                                                                            : reply.kind_name()},
                 {"category", std::string(reply.category())},
                 {"row", std::string(reply.row())},
                 {"reference", middleware_access::reference_of(reply)}};
    sink(line);
    return std::nullopt;
  };
  return m;
}

middleware authorize(authorize_options o) {
  if (!o.deny) throw std::invalid_argument("authorize: give the deny predicate");
  middleware m{.name = o.name, .methods = o.methods, .tools = o.tools};
  m.before =
      [deny = std::move(o.deny)](const middleware_request& r) -> std::optional<middleware_reply> {
    auto why = deny(r);
    if (!why) return std::nullopt;
    if (why->empty()) why = "this caller is not authorized";
    return middleware_reply::with_refusal(refusal::forbidden(std::move(*why)));
  };
  return m;
}

}  // namespace mcpcxx
