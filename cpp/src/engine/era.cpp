// Era selection (modern _meta vs legacy session) and the gates of the method table.
#include "engine/era.hpp"

#include "engine/call.hpp"
#include "engine/method_table.hpp"
#include "engine/wire_errors.hpp"
#include "mcpcxx/server.hpp"

namespace mcpcxx::detail {

namespace {

constexpr std::string_view k_version_key = "io.modelcontextprotocol/protocolVersion";
constexpr std::string_view k_caps_key = "io.modelcontextprotocol/clientCapabilities";
constexpr std::string_view k_info_key = "io.modelcontextprotocol/clientInfo";
constexpr std::string_view k_level_key = "io.modelcontextprotocol/logLevel";

const json* meta_of(const json& params) {
  auto it = params.find("_meta");
  return it != params.end() && it->is_object() ? &*it : nullptr;
}

std::optional<jsonrpc::error_object> modern_facts(call& c, const json& meta) {
  std::vector<std::string> missing;
  if (!meta.contains(k_version_key)) missing.emplace_back(k_version_key);
  if (!meta.contains(k_caps_key)) missing.emplace_back(k_caps_key);
  if (!missing.empty()) return wire::missing_modern_meta(missing);
  const json& version = meta[k_version_key];
  if (!version.is_string() || version.get_ref<const std::string&>() != k_modern_version) {
    return wire::unsupported_version(version);
  }
  const json& caps = meta[k_caps_key];
  if (!caps.is_object()) {
    return wire::invalid_params(std::string(k_caps_key) + " must be an object (use {} for none)");
  }
  c.modern = true;
  c.version = std::string(k_modern_version);
  c.client_capabilities = caps;
  if (auto it = meta.find(k_info_key); it != meta.end()) c.client_info = *it;
  if (auto it = meta.find(k_level_key); it != meta.end()) {
    auto level = it->is_string() ? parse_log_level(it->get_ref<const std::string&>()) : std::nullopt;
    if (!level) return wire::invalid_log_level(*it);
    c.min_log_level = level;
  }
  return std::nullopt;
}

void legacy_facts(call& c, const legacy_state& l) {
  c.modern = false;
  c.version = l.version;
  c.client_capabilities = l.client_capabilities;
  c.client_info = l.client_info;
  c.min_log_level = l.level;
}

std::optional<jsonrpc::error_object> gate(const call& c, const method_info* m, bool initialized) {
  if (m == nullptr) return wire::method_not_found(c.method);
  if (c.modern && (m->flags & in_modern) == 0) return wire::method_not_in_era(c.method, c.version);
  if (!c.modern && (m->flags & in_legacy) == 0) {
    return initialized ? wire::method_not_in_era(c.method, c.version)
                       : wire::not_initialized(c.method);
  }
  if (!c.modern && !initialized && (m->flags & before_init) == 0) {
    return wire::not_initialized(c.method);
  }
  if (!m->capability.empty() && !c.eng().has_capability(m->capability)) {
    return wire::capability_not_advertised(c.method, m->capability);
  }
  return std::nullopt;
}

}  // namespace

std::optional<jsonrpc::error_object> route(call& c, const method_info*& m) {
  const json* meta = meta_of(c.params);
  const bool has_modern_meta =
      meta != nullptr && (meta->contains(k_version_key) || meta->contains(k_caps_key));
  std::string negotiated;
  if (c.method != "initialize" && has_modern_meta) {
    if (auto err = modern_facts(c, *meta)) return err;
    negotiated = c.session->legacy_version();
  } else {
    const legacy_state l = c.session->legacy();
    legacy_facts(c, l);
    negotiated = l.version;
  }
  if (meta != nullptr) {
    if (auto it = meta->find("progressToken");
        it != meta->end() && (it->is_string() || it->is_number_integer())) {
      c.progress_token = *it;
    }
  }
  m = find_method(c.method);
  return gate(c, m, !negotiated.empty());
}

void run_method(call& c, const method_info& m) {
  try {
    m.handler(c);
  } catch (const protocol_error& e) {
    c.reply_error(wire::from_protocol_error(e));
  } catch (const missing_client_capability& e) {
    c.reply_error(wire::missing_client_capability(e.required()));
  } catch (const resource_not_found& e) {
    c.reply_error(wire::resource_not_found(e.uri(), c.modern));
  } catch (const std::exception& e) {
    const std::string ref = server_log::new_reference();
    c.eng().log().write("error", "handler_exception",
                        {{"method", c.method}, {"reference", ref}, {"what", e.what()}});
    c.reply_error(wire::internal_error(ref), ref);
  } catch (...) {
    const std::string ref = server_log::new_reference();
    c.eng().log().write("error", "handler_exception", {{"method", c.method}, {"reference", ref}});
    c.reply_error(wire::internal_error(ref), ref);
  }
  c.session->finished_running();
}

}  // namespace mcpcxx::detail
