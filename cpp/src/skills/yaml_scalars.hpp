// The scalar and flow pieces of the frontmatter reader (frontmatter.cpp): plain scalar
// resolution by the YAML 1.2 core schema, quoted scalars, block scalars and [ ] / { } flow
// collections. Errors are std::invalid_argument "line N: ..." like the reader's.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcpcxx/json.hpp"

namespace mcpcxx::skills {

/// `s` without leading and trailing spaces and tabs.
std::string_view trim(std::string_view s);

/// A plain scalar by the core schema: null, true/false, an integer, a float, else the string.
/// .inf and .nan are refused (JSON has no such number).
json resolve_plain(std::string_view text, std::size_t line);

/// The lines a quoted scalar may span: line(0) is the rest of its first line (starting with the
/// quote), line(k) the k-th following line without indentation; nullopt past the last one.
using quoted_lines = std::function<std::optional<std::string_view>(std::size_t)>;
/// The quoted scalar of `line` (read lazily, so a long document costs one pass); `used` receives
/// the lines it spans. Only a comment may follow the closing quote.
std::string read_quoted(const quoted_lines& line, std::size_t first_line, std::size_t& used);

/// A block scalar header: `|` or `>`, chomping, indentation indicator.
struct block_header {
  bool folded = false;
  char chomp = 'c';                 ///< 'c' clip, 's' strip (-), 'k' keep (+)
  std::size_t explicit_indent = 0;  ///< 0: detected from the first content line
};
/// Reads "|", ">-", "|2+ # comment", ...
block_header read_block_header(std::string_view header, std::size_t line);
/// The value of a block scalar from its raw lines (indentation included; blank lines empty).
std::string render_block(const block_header& h, const std::vector<std::string_view>& raw,
                         std::size_t content_indent);

/// True when every [ and { of `s` outside quotes is closed.
bool flow_balanced(std::string_view s);
/// The flow collection `s` ([...] or {...}), followed by nothing but a comment.
json parse_flow(std::string_view s, std::size_t line, std::size_t depth);

}  // namespace mcpcxx::skills
