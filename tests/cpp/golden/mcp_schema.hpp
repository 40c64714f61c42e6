// Validates server messages against the official MCP JSON Schema of their revision, read in place
// from ../shared/data/mcp-schema/REV/schema.json, using the project's own validator.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "mcpcxx/json_schema.hpp"

namespace mcpcxx::golden {

/// Lazily compiles one definition per (revision, name) and validates against it.
class mcp_schema {
 public:
  explicit mcp_schema(std::string data_dir) : dir_(std::move(data_dir)) {}
  /// "" when `message` (a reply to `method`, or a notification when method is empty) conforms;
  /// otherwise the violations.
  std::string check(const std::string& revision, const std::string& method, const json& message);
  /// The revision whose schema file exists for `revision` (2024-11-05 maps to 2025-03-26).
  static std::string schema_revision(const std::string& revision);

 private:
  std::string validate(const std::string& rev, const std::string& def, const json& value);
  std::string dir_;
  std::map<std::string, json> docs_;
  std::map<std::string, std::shared_ptr<const schema::compiled_schema>> compiled_;
};

}  // namespace mcpcxx::golden
