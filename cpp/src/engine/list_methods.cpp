// tools/list, resources/list, resources/templates/list and prompts/list: cached, paginated.
#include "engine/call.hpp"
#include "engine/method_table.hpp"
#include "engine/wire_errors.hpp"

namespace mcpcxx::detail {

namespace {

void serve_list(call& c) {
  std::optional<std::string> cursor;
  if (auto it = c.params.find("cursor"); it != c.params.end() && !it->is_null()) {
    if (!it->is_string()) {
      c.reply_error(
          wire::invalid_params("cursor must be a string taken from a previous nextCursor"));
      return;
    }
    cursor = it->get<std::string>();
  }
  auto raw = c.eng().list_result(c.method, c.modern, cursor);
  if (!raw) {
    c.reply_error(wire::invalid_cursor());
    return;
  }
  c.reply_raw(*raw);
}

}  // namespace

void handle_tools_list(call& c) { serve_list(c); }
void handle_resources_list(call& c) { serve_list(c); }
void handle_templates_list(call& c) { serve_list(c); }
void handle_prompts_list(call& c) { serve_list(c); }

}  // namespace mcpcxx::detail
