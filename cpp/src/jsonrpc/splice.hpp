// Result members added while a reply is written, so the engine's decoration of every modern
// result (resultType, _meta's serverInfo) needs no copy of them in the result's json tree.
#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "mcpcxx/jsonrpc.hpp"

namespace mcpcxx::jsonrpc {

/// A member written into a result object: at the top level, or inside the top-level object
/// member `parent` when it is not empty (that member is created when absent, and replaced by an
/// object holding only the spliced member when it is not an object). `json_text` is compact JSON
/// written verbatim; the member replaces one of the same key. Keys keep nlohmann's sorted order,
/// so the bytes equal those of the result with the members set in the tree, then dumped.
struct spliced_member {
  std::string_view parent;
  std::string_view key;
  std::string_view json_text;
};

/// serialize_result of `result` (an object) with `members` (at most one per parent and key)
/// spliced in. Thread-safety: pure; any thread.
std::string serialize_result_spliced(const request_id& id, const json& result,
                                     std::initializer_list<spliced_member> members);
/// The same, with the members in a span (a list built at run time).
std::string serialize_result_spliced(const request_id& id, const json& result,
                                     std::span<const spliced_member> members);

/// `value` as compact JSON text, the bytes the reply writers give it (for a spliced member).
/// Thread-safety: pure; any thread.
std::string serialize_value(const json& value);
/// `object` (an object) as compact JSON text with `members` (parent "" only) spliced in, the
/// bytes of serialize_value once they are set in the tree. Thread-safety: pure; any thread.
std::string serialize_object_spliced(const json& object, std::span<const spliced_member> members);

}  // namespace mcpcxx::jsonrpc
