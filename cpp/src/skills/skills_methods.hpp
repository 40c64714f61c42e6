// The Skills extension's methods: skills/list (paginated, with ttlMs and cacheScope), skills/get
// and resources/directory/read (served only when skills_options::directory_read is set;
// otherwise it answers as an unknown method, as the extension allows). Their method-table rows
// are gated by the extension being declared (the row's capability is the extension id).
// Thread-safety: the handlers may run on any thread at once (the service guards itself).
#pragma once

#include <optional>
#include <string>

#include "core/method_bindings.hpp"
#include "skills/skills_service.hpp"

namespace mcpcxx::detail {

/// resources/directory/read: the directory URI and an optional cursor.
struct directory_read_params {
  std::string uri;
  std::optional<std::string> cursor;
};
/// Decodes resources/directory/read params (rows P15a, P15b).
decode_result decode(json& params, std::string_view method, directory_read_params& out);

/// Binds skills/list, skills/get and resources/directory/read to `service`.
void bind_skills_methods(method_bindings& methods, skills_service& service);

}  // namespace mcpcxx::detail
