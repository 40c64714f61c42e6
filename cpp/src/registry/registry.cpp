// Registries: ordering, cursors, name validation, listings (suggestions: closest_keys.cpp).
#include "registry/registry.hpp"

#include <algorithm>
#include <stdexcept>

namespace mcpcxx::detail {

template <class Entry>
bool ordered_registry<Entry>::add(const std::string& key, std::shared_ptr<const Entry> entry) {
  if (index_.count(key) != 0) return false;
  index_.emplace(key, items_.size());
  keys_.push_back(key);
  items_.push_back(std::move(entry));
  return true;
}

template <class Entry>
bool ordered_registry<Entry>::remove(std::string_view key) {
  auto it = index_.find(key);
  if (it == index_.end()) return false;
  const std::size_t pos = it->second;
  index_.erase(it);
  keys_.erase(keys_.begin() + static_cast<std::ptrdiff_t>(pos));
  items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(pos));
  for (auto& [k, i] : index_) {
    if (i > pos) --i;
  }
  return true;
}

template <class Entry>
std::optional<std::size_t> ordered_registry<Entry>::resolve(
    const std::optional<std::string>& cursor) const {
  if (!cursor) return 0;
  auto decoded = decode_cursor(*cursor);
  if (!decoded) return std::nullopt;
  const auto& [pos, key] = *decoded;
  // The key pins the cursor to an item, so removals before it neither skip nor repeat entries.
  if (pos < keys_.size() && keys_[pos] == key) return pos;
  if (auto it = index_.find(key); it != index_.end()) return it->second;
  return std::nullopt;
}

template <class Entry>
page<Entry> ordered_registry<Entry>::page_from(std::size_t start, std::size_t page_size) const {
  page<Entry> out;
  start = std::min(start, items_.size());
  const std::size_t end = std::min(items_.size(), start + std::max<std::size_t>(page_size, 1));
  out.items.assign(items_.begin() + static_cast<std::ptrdiff_t>(start),
                   items_.begin() + static_cast<std::ptrdiff_t>(end));
  if (end < items_.size()) out.next_cursor = encode_cursor(end, keys_[end]);
  return out;
}

template class ordered_registry<tool_entry>;
template class ordered_registry<resource_entry>;
template class ordered_registry<template_entry>;
template class ordered_registry<prompt_entry>;

namespace {

constexpr char k_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr std::string_view k_cursor_tag = "mcpcxx1:";

std::string b64url_encode(std::string_view in) {
  std::string out;
  std::uint32_t buf = 0;
  int bits = 0;
  for (unsigned char c : in) {
    buf = (buf << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(k_b64[(buf >> bits) & 0x3F]);
    }
  }
  if (bits > 0) out.push_back(k_b64[(buf << (6 - bits)) & 0x3F]);
  return out;
}

std::optional<std::string> b64url_decode(std::string_view in) {
  std::string out;
  std::uint32_t buf = 0;
  int bits = 0;
  for (char c : in) {
    const char* p = std::char_traits<char>::find(k_b64, 64, c);
    if (p == nullptr) return std::nullopt;
    buf = (buf << 6) | static_cast<std::uint32_t>(p - k_b64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buf >> bits) & 0xFF));
    }
  }
  return out;
}

}  // namespace

std::string encode_cursor(std::size_t index, std::string_view key) {
  return b64url_encode(std::string(k_cursor_tag) + std::to_string(index) + ":" + std::string(key));
}

std::optional<std::pair<std::size_t, std::string>> decode_cursor(std::string_view cursor) {
  if (cursor.size() > 4096) return std::nullopt;
  auto raw = b64url_decode(cursor);
  if (!raw || raw->rfind(k_cursor_tag, 0) != 0) return std::nullopt;
  const std::string rest = raw->substr(k_cursor_tag.size());
  const auto colon = rest.find(':');
  if (colon == std::string::npos || colon == 0 || colon > 12) return std::nullopt;
  std::size_t index = 0;
  for (std::size_t i = 0; i < colon; ++i) {
    if (rest[i] < '0' || rest[i] > '9') return std::nullopt;
    index = index * 10 + static_cast<std::size_t>(rest[i] - '0');
  }
  return std::make_pair(index, rest.substr(colon + 1));
}

bool valid_tool_name(std::string_view name) noexcept {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

// The listings are the specs' JSON forms (cpp/src/model/primitives_json.cpp).
json tool_listing(const tool_spec& spec) { return spec; }
json resource_listing(const resource_spec& spec) { return spec; }
json template_listing(const resource_template_spec& spec) { return spec; }
json prompt_listing(const prompt_spec& spec) { return spec; }

}  // namespace mcpcxx::detail
