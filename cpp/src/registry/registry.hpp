// Ordered registries of tools, resources, templates and prompts, with opaque page cursors.
// Thread-safety: not synchronized; the catalog guards the registries with its lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mcpcxx/json_schema.hpp"
#include "mcpcxx/primitives.hpp"
#include "mcpcxx/uri_template.hpp"

namespace mcpcxx::detail {

class tool_step;  // core/tool_step.hpp: the registry only keeps them

/// A registered tool with its compiled schemas and its tools/list entry.
struct tool_entry {
  tool_spec spec;
  tool_handler handler;              ///< the blocking form (for an async tool: waits for it)
  async_tool_handler async_handler;  ///< set for an async tool (server::add_async_tool)
  std::shared_ptr<const schema::compiled_schema> input;
  std::shared_ptr<const schema::compiled_schema> output;  ///< null without outputSchema
  bool read_only = false;
  json listed;                     ///< the Tool object as listed
  std::uint32_t metrics_slot = 0;  ///< the tool's label slot in the metrics
  /// The per-tool steps of tools/call, in order (empty for most tools).
  std::vector<std::shared_ptr<const tool_step>> steps;
};

/// A registered concrete resource.
struct resource_entry {
  resource_spec spec;
  resource_reader reader;
  json listed;
};

/// A registered resource template.
struct template_entry {
  resource_template_spec spec;
  resource_template_reader reader;
  uri_template parsed;
  json listed;
};

/// A registered prompt.
struct prompt_entry {
  prompt_spec spec;
  prompt_handler handler;
  json listed;
};

/// Hashes std::string and std::string_view alike, so a lookup by string_view allocates nothing.
struct transparent_string_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};

/// One page of a listing.
template <class Entry>
struct page {
  std::vector<std::shared_ptr<const Entry>> items;
  std::optional<std::string> next_cursor;
};

/// Insertion-ordered registry keyed by name or URI.
template <class Entry>
class ordered_registry {
 public:
  /// Adds; returns false when the key exists.
  bool add(const std::string& key, std::shared_ptr<const Entry> entry);
  /// Removes; returns false when absent.
  bool remove(std::string_view key);
  /// Finds by key; null when absent.
  std::shared_ptr<const Entry> find(std::string_view key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : items_[it->second];
  }
  /// All entries in order.
  const std::vector<std::shared_ptr<const Entry>>& all() const noexcept { return items_; }
  /// Keys in order.
  const std::vector<std::string>& keys() const noexcept { return keys_; }
  /// The start index a cursor points at (nullopt cursor: 0); nullopt when the cursor is invalid.
  std::optional<std::size_t> resolve(const std::optional<std::string>& cursor) const;
  /// The page starting at index `start`.
  page<Entry> page_from(std::size_t start, std::size_t page_size) const;
  bool empty() const noexcept { return items_.empty(); }

 private:
  std::vector<std::string> keys_;
  std::vector<std::shared_ptr<const Entry>> items_;
  std::unordered_map<std::string, std::size_t, transparent_string_hash, std::equal_to<>> index_;
};

/// Encodes a cursor pointing at position `index` whose key is `key`.
std::string encode_cursor(std::size_t index, std::string_view key);
/// Decodes a cursor into (index, key); nullopt when it is not one of ours.
std::optional<std::pair<std::size_t, std::string>> decode_cursor(std::string_view cursor);

/// True for 1-64 characters of [A-Za-z0-9_.-].
bool valid_tool_name(std::string_view name) noexcept;
/// Up to `max` keys closest to `name` (edit distance, then prefix), best first.
std::vector<std::string> closest_keys(std::string_view name, const std::vector<std::string>& keys,
                                      std::size_t max = 3);

/// Builds the tools/list entry for a spec.
json tool_listing(const tool_spec& spec);
/// Builds the resources/list entry for a spec.
json resource_listing(const resource_spec& spec);
/// Builds the resources/templates/list entry for a spec.
json template_listing(const resource_template_spec& spec);
/// Builds the prompts/list entry for a spec.
json prompt_listing(const prompt_spec& spec);

}  // namespace mcpcxx::detail
