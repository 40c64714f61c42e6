// Compilation of schema documents into the node tree: dialects, resource indexing, $ref
// resolution, and the build context keyword families use.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "schema/ast.hpp"

namespace mcpcxx::schema::detail {

enum class draft { d7, d2019, d2020 };

/// A dialect: the draft plus the vocabularies its meta-schema enables.
struct dialect {
  draft version = draft::d2020;
  bool applicator = true;
  bool validation = true;
  bool unevaluated = true;
  bool format_assert = false;
  bool content_assert = false;  ///< draft-07: contentEncoding/contentMediaType are checked
};

/// Where a subschema lives: its base URI, dialect, resource and JSON pointer (for messages).
struct location {
  std::string base;
  const dialect* dia = nullptr;
  resource* res = nullptr;
  std::string pointer;  ///< "<document uri>#<pointer>" for error messages
};

class compiler;

/// What a keyword family sees while compiling one schema object.
struct build_ctx {
  compiler& comp;
  const json& obj;
  const location& at;
  node& out;

  /// The dialect of this schema object.
  const dialect& dia() const { return *at.dia; }
  /// The value of keyword `kw`, or nullptr when absent.
  const json* get(std::string_view kw) const;
  /// The compiled subschema `child` (a value inside this object under keyword path `path`).
  const node* sub(const json& child, std::string_view path);
  /// Throws schema_error naming this location, keyword `kw` and `problem`.
  [[noreturn]] void fail(std::string_view kw, std::string_view problem) const;
  /// The value of a count keyword (minItems, maxLength, ...): a non-negative integer, also
  /// written as an integral float; counts past std::size_t saturate. Fails otherwise.
  std::size_t count(std::string_view kw, const json& v) const;
  /// Appends a compiled keyword to the node.
  void add(std::unique_ptr<keyword> kw) { out.keywords.push_back(std::move(kw)); }
};

void add_core_keywords(build_ctx& b);         ///< $ref, $dynamicRef, type, enum, const
void add_scalar_keywords(build_ctx& b);       ///< numbers, strings, format, content
void add_array_keywords(build_ctx& b);        ///< items, prefixItems, contains, ...
void add_object_keywords(build_ctx& b);       ///< properties, required, ...
void add_applicator_keywords(build_ctx& b);   ///< allOf, anyOf, oneOf, not, if/then/else
void add_unevaluated_keywords(build_ctx& b);  ///< unevaluatedProperties / unevaluatedItems

/// Everything compilation produced; owned by the compiled schema.
struct compiled_parts {
  std::vector<std::unique_ptr<node>> nodes;
  std::vector<std::unique_ptr<resource>> resources;
  std::deque<dialect> dialects;
  const node* root = nullptr;
  bool dynamic = false;
};

/// Compiles one schema (plus what it references) into compiled_parts.
class compiler {
 public:
  explicit compiler(const compile_options& opts);
  /// Compiles `schema`; throws schema_error.
  compiled_parts run(const json& schema);

  /// The node for subschema `j` (compiled later from the work list); `parent` supplies defaults.
  const node* node_for(const json& j, const location& parent, std::string_view path);
  /// Resolves a $ref value written at `at`; returns the target and its location.
  std::pair<const json*, const location*> resolve(const location& at, std::string_view ref);
  /// Throws schema_error for `at`.
  [[noreturn]] void fail(const location& at, std::string_view kw, std::string_view problem) const;
  /// Compile options in use.
  const compile_options& options() const { return opts_; }
  /// Marks the schema as using $dynamicRef.
  void uses_dynamic() { parts_.dynamic = true; }

 private:
  const dialect* dialect_for(const std::string& uri, const location* at);
  const dialect* root_dialect(const json& doc, const dialect* fallback, const location* at);
  void index(const json& s, const location& parent, std::size_t depth);
  void index_children(const json& s, const location& here, std::size_t depth);
  const json* load_document(const std::string& uri, const location& at);
  void compile_one(node& n, const json& j, const location& at);
  void compile_pending();

  const compile_options& opts_;
  compiled_parts parts_;
  std::map<std::string, const json*> by_uri_;
  std::unordered_map<const json*, location> locs_;
  std::unordered_map<const json*, node*> nodes_;
  std::deque<std::pair<node*, const json*>> pending_;
  std::vector<std::pair<resource*, std::pair<std::string, const json*>>> dyn_anchors_;
  std::map<std::string, const dialect*> dialect_cache_;
};

/// A dialect URI as the compiler compares it: without a trailing "#", draft-07 over https read as
/// http.
std::string normalize_dialect_uri(std::string uri);

/// Throws schema_error if `v` nests deeper than `limit` (checked without recursion).
void check_value_depth(const json& v, std::size_t limit, const build_ctx& b, std::string_view kw);

}  // namespace mcpcxx::schema::detail
