// JSON form of stdio_options (stdio layer).
#include "mcpcxx/stdio_json.hpp"

#include "model/fields.hpp"

namespace mcpcxx {

using model::read;
using model::seconds;

void to_json(json& j, const stdio_options& o) {
  j = {{"protect_stdout", o.protect_stdout},         {"drain_grace", seconds(o.drain_grace)},
       {"max_outbound_bytes", o.max_outbound_bytes}, {"handle_signals", o.handle_signals},
       {"inline_dispatch", o.inline_dispatch},       {"request_poll", seconds(o.request_poll)}};
}

void from_json(const json& j, stdio_options& o) {
  constexpr const char* what = "stdio option";
  model::require_object(j, "stdio options");
  model::reject_unknown(j, what,
                        {"protect_stdout", "drain_grace", "max_outbound_bytes", "handle_signals",
                         "inline_dispatch", "request_poll"});
  read(j, "protect_stdout", what, o.protect_stdout);
  read(j, "drain_grace", what, o.drain_grace);
  read(j, "max_outbound_bytes", what, o.max_outbound_bytes);
  read(j, "handle_signals", what, o.handle_signals);
  read(j, "inline_dispatch", what, o.inline_dispatch);
  read(j, "request_poll", what, o.request_poll);
}

}  // namespace mcpcxx
