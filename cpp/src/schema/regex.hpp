// ECMA-262 patterns (as JSON Schema's `pattern` and `patternProperties` use them), translated to
// std::wregex over UTF-32 so that `.`, quantifiers and classes work on code points.
#pragma once

#include <bitset>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>

namespace mcpcxx::schema::detail {

/// Outcome of matching one string.
enum class match_result { match, no_match, too_long };

/// "^[class]{min,max}$" over ASCII members: the shape most tool-schema patterns have.
struct class_run {
  std::bitset<128> set;
  bool negated = false;
  std::size_t min = 1;
  std::size_t max = 1;
};

/// Recognizes `pattern` as a class_run, or nullopt for any other shape.
std::optional<class_run> parse_class_run(std::string_view pattern);

/// Matches `utf8` against `r` exactly as the ECMA-262 pattern would.
match_result match_class_run(const class_run& r, std::string_view utf8) noexcept;

/// A compiled pattern; immutable and safe to use from several threads.
class ecma_regex {
 public:
  /// Longest input (in code points) handed to std::regex, whose matcher recurses per character.
  static constexpr std::size_t max_input = 10000;
  /// Longest input for a pattern with back-references, the only ones matched by backtracking
  /// (exponential in the worst case); longer inputs are a validation limit (too_long).
  static constexpr std::size_t max_backtracking_input = 64;

  /// Compiles `pattern`; on failure returns nullptr and sets `error`.
  static std::unique_ptr<ecma_regex> compile(std::string_view pattern, std::string& error);
  /// True when `pattern` is valid ECMA-262 syntax as far as this translation can tell, including
  /// constructs std::regex cannot execute (lookbehind); used by format "regex".
  static bool check_syntax(std::string_view pattern);
  /// Unanchored search (ECMA-262 RegExp.prototype.test semantics).
  match_result search(std::string_view utf8) const;

 private:
  std::optional<std::wregex> re_;
  std::string literal_;    ///< set for patterns without metacharacters
  bool anchored_ = false;  ///< literal_ must be a prefix ("^literal")
  bool use_literal_ = false;
  bool backtracking_ = false;     ///< back-references: std::regex's backtracking matcher
  std::optional<class_run> run_;  ///< set when the pattern is a class_run
};

/// Translates ECMA-262 `pattern` to std::regex ECMAScript syntax over UTF-32; false + error on
/// unsupported or malformed input. `syntax_only` maps lookbehind to lookahead for syntax checks.
bool translate_pattern(std::string_view pattern, std::wstring& out, std::string& error,
                       bool syntax_only);

/// Decodes UTF-8 into UTF-32; invalid sequences become U+FFFD. Returns false if over `max_len`.
bool utf8_to_wide(std::string_view s, std::wstring& out, std::size_t max_len);

}  // namespace mcpcxx::schema::detail
