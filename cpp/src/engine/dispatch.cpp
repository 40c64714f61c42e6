// Era selection (modern _meta vs legacy session), the method table's gates, and the run.
#include "engine/dispatch.hpp"

#include "mcpcxx/server.hpp"

#include "engine/classify.hpp"
#include "engine/engine.hpp"
#include "engine/exchange.hpp"
#include "engine/method_table.hpp"
#include "engine/session_state.hpp"
#include "engine/wire_errors_pending.hpp"

namespace mcpcxx::detail {

namespace {

constexpr std::string_view k_version_key = "io.modelcontextprotocol/protocolVersion";
constexpr std::string_view k_caps_key = "io.modelcontextprotocol/clientCapabilities";
constexpr std::string_view k_info_key = "io.modelcontextprotocol/clientInfo";
constexpr std::string_view k_level_key = "io.modelcontextprotocol/logLevel";

using refusal = std::optional<method_outcome>;

refusal refuse(situation row, const json& args = json::object()) {
  return method_outcome::protocol(row, args);
}

const json* meta_of(const json& params) {
  auto it = params.find("_meta");
  return it != params.end() && it->is_object() ? &*it : nullptr;
}

refusal modern_facts(request_facts& f, const json* meta) {
  std::vector<std::string> missing;
  if (meta == nullptr || !meta->contains(k_version_key)) missing.emplace_back(k_version_key);
  if (meta == nullptr || !meta->contains(k_caps_key)) missing.emplace_back(k_caps_key);
  if (!missing.empty()) return refuse(situation::P11_missing_modern_meta, {{"missing", missing}});
  const json& version = (*meta)[k_version_key];
  if (!version.is_string() || version.get_ref<const std::string&>() != k_modern_version) {
    return refuse(situation::P12_unsupported_version, {{"requested", version}});
  }
  const json& caps = (*meta)[k_caps_key];
  if (!caps.is_object())
    return method_outcome::pending_protocol(
        "P15", wire::param_invalid(k_caps_key, "an object (use {} for none)"));
  f.modern = true;
  f.version = std::string(k_modern_version);
  f.client_capabilities = caps;
  if (auto it = meta->find(k_info_key); it != meta->end()) f.client_info = *it;
  if (auto it = meta->find(k_level_key); it != meta->end()) {
    auto level =
        it->is_string() ? parse_log_level(it->get_ref<const std::string&>()) : std::nullopt;
    if (!level) return refuse(situation::P22_invalid_log_level, {{"level", *it}});
    f.min_log_level = level;
  }
  return std::nullopt;
}

void legacy_facts(request_facts& f, legacy_state&& l) {
  f.modern = false;
  f.version = std::move(l.version);
  f.client_capabilities = std::move(l.client_capabilities);
  f.client_info = std::move(l.client_info);
  f.min_log_level = l.level;
}

// Which era serves the request: the transport's hint when it knows, else the request's _meta.
bool served_modern(const exchange& ex, const json* meta, era_hint hint) {
  if (hint != era_hint::unknown) return hint == era_hint::modern;
  return ex.method() != "initialize" && meta != nullptr &&
         (meta->contains(k_version_key) || meta->contains(k_caps_key));
}

refusal gate(const exchange& ex, const method_info* m, bool initialized) {
  const auto& f = ex.facts;
  if (m == nullptr) return refuse(situation::P8_method_not_found, {{"method", ex.method()}});
  if (f.modern && (m->flags & in_modern) == 0) {
    return refuse(situation::P9_method_not_in_era,
                  {{"method", ex.method()}, {"protocolVersion", f.version}});
  }
  if (!f.modern && (m->flags & in_legacy) == 0) {
    return initialized ? refuse(situation::P9_method_not_in_era,
                                {{"method", ex.method()}, {"protocolVersion", f.version}})
                       : refuse(situation::P14_not_initialized, {{"method", ex.method()}});
  }
  if (!f.modern && !initialized && (m->flags & before_init) == 0) {
    return refuse(situation::P14_not_initialized, {{"method", ex.method()}});
  }
  if (!m->capability.empty() && !ex.eng().has_capability(m->capability)) {
    return refuse(situation::P10_capability_not_advertised,
                  {{"method", ex.method()}, {"capability", m->capability}});
  }
  return std::nullopt;
}

// Fills the era facts of `ex`, finds its row and applies every gate in order.
refusal route(exchange& ex, era_hint hint, const method_info*& m) {
  json& params = ex.params();
  if (!params.is_null() && !params.is_object()) {
    return method_outcome::pending_protocol("P15",
                                            wire::param_invalid("params", "an object", &params));
  }
  if (params.is_null()) params = json::object();
  const json* meta = meta_of(params);
  bool initialized = false;
  m = find_method(ex.method());
  if (served_modern(ex, meta, hint)) {
    // A method the modern era does not have is unknown whatever its _meta (initialize over a
    // modern HTTP request is -32601, as the conformance suite expects).
    if (m == nullptr || (m->flags & in_modern) == 0) {
      ex.facts.modern = true;
      ex.facts.version = std::string(k_modern_version);
      return gate(ex, m, false);
    }
    if (auto r = modern_facts(ex.facts, meta)) return r;
    initialized = !ex.session().legacy_version().empty();
  } else {
    legacy_facts(ex.facts, ex.session().legacy());
    initialized = !ex.facts.version.empty();
  }
  if (meta != nullptr) {
    if (auto it = meta->find("progressToken");
        it != meta->end() && (it->is_string() || it->is_number_integer())) {
      ex.facts.progress_token = *it;
    }
  }
  return gate(ex, m, initialized);
}

handler_kind kind_of(const method_info& m) {
  if (m.name == "tools/call") return handler_kind::tool;
  if (m.name == "resources/read") return handler_kind::resource;
  if (m.name == "prompts/get") return handler_kind::prompt;
  if (m.name == "completion/complete") return handler_kind::completion;
  return handler_kind::engine;
}

// Runs the row's handler; whatever escapes it goes through the one classifier.
void run(const std::shared_ptr<exchange>& ex, const method_info& m) {
  method_outcome out;
  try {
    out = m.serve(ex);
  } catch (...) {
    out = classify(std::current_exception(), *ex, kind_of(m));
  }
  ex->finish(std::move(out));
  ex->session().handler_returned();
}

}  // namespace

void dispatch(std::shared_ptr<exchange> ex, era_hint hint) {
  const method_info* m = nullptr;
  if (auto r = route(*ex, hint, m)) {
    ex->finish(std::move(*r));
    return;
  }
  if (!ex->session().admit(ex, (m->flags & not_cancellable) == 0)) {
    ex->finish(method_outcome::protocol(situation::P6_duplicate_request_id,
                                        {{"id", jsonrpc::id_key(ex->id())}}));
    return;
  }
  if ((m->flags & on_worker) != 0 && !ex->session().options().inline_dispatch) {
    ex->eng().pool().post([ex = std::move(ex), m] { run(ex, *m); });
  } else {
    run(ex, *m);
  }
}

}  // namespace mcpcxx::detail
