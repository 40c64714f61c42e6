// The MCP Apps checks shared by the metadata builders (ui_meta.cpp) and the registration on a
// server (apps.cpp). Pure functions; each throws std::invalid_argument naming what is wrong.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mcpcxx/apps.hpp"
#include "mcpcxx/json.hpp"

namespace mcpcxx::apps::detail {

/// Throws unless `uri` is ui://<something> without whitespace; `what` starts the message.
void check_ui_uri(std::string_view what, std::string_view uri);
/// The visibility array of `values` ("model", "app", each once); `who` starts the message.
json visibility_array(std::string_view who, const std::vector<std::string>& values);
/// tool_ui_meta, with `who` (e.g. "tool 'show_board'") starting every message.
json linked_meta(std::string_view who, json meta, const tool_ui& ui);

}  // namespace mcpcxx::apps::detail
