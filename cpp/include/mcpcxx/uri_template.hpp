// RFC 6570 URI templates for resource templates: parsing, matching a URI, and expansion.
// Supported: literals and the expressions {var}, {+var}, {#var}, {.var}, {/var}, {;var}, {?var},
// {&var}, each with one or more comma-separated variables and the prefix modifier {var:3}. The
// explode modifier {var*} (lists and maps) is refused at parse time. Values are strings.
// Matching is the inverse of expansion: a simple {var} never spans '/', '?' or '#'; {+var} and
// {#var} may span anything; {/var}, {.var}, {;var}, {?var}, {&var} may be absent from the URI
// (their variables are then undefined, absent from the result); values are percent-decoded.
// Thread-safety: a parsed template is immutable; match and expand may run concurrently.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpcxx {

/// A parsed RFC 6570 template (see the file comment for the supported subset).
class uri_template {
 public:
  /// One variable of an expression: its name and its prefix length (`{var:3}`; 0 = whole value).
  struct variable {
    std::string name;
    std::size_t max_length = 0;
  };
  /// Literal text (`op` unused) or an expression: its operator ('\0' for simple) and variables.
  struct part {
    bool expression = false;
    char op = '\0';
    std::string literal;
    std::vector<variable> variables;
  };

  /// An empty template (matches only the empty URI).
  uri_template() = default;
  /// Parses `text`; throws std::invalid_argument saying what is wrong, where, and what to write.
  explicit uri_template(std::string_view text);

  /// The template text as given.
  const std::string& text() const noexcept { return text_; }
  /// The parsed parts, in order.
  const std::vector<part>& parts() const noexcept { return parts_; }
  /// Every variable name, in order of first appearance.
  std::vector<std::string> variable_names() const;
  /// The names every match defines: the first variable of each simple or {+} expression (the
  /// others may be absent from a matching URI).
  std::vector<std::string> required_variable_names() const;
  /// True when the template has at least one expression.
  bool has_expressions() const noexcept;

  /// The variables `uri` defines when it matches (percent-decoded); nullopt when it does not.
  /// Work is bounded: a URI that would need more than ~1M matching steps does not match.
  std::optional<std::map<std::string, std::string>> match(std::string_view uri) const;
  /// The URI for `values` (an absent name is undefined), percent-encoding as RFC 6570 says.
  std::string expand(const std::map<std::string, std::string>& values) const;

 private:
  std::string text_;
  std::vector<part> parts_;
};

}  // namespace mcpcxx
