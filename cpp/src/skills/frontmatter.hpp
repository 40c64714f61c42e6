// The YAML frontmatter of a SKILL.md, rendered as JSON (Skills extension: the `frontmatter` of a
// Skill entry is the author's frontmatter verbatim). A subset of YAML 1.2 is read: block mappings
// and sequences, plain, single- and double-quoted and block (| >) scalars, flow [ ] and { }
// collections, comments; plain scalars resolve by the core schema (null, booleans, integers,
// floats, else strings). Anything else (anchors, aliases, tags, directives, complex keys, tabs
// in indentation, duplicate keys, a plain value containing ": ") is refused with the line and
// what to write instead, never guessed.
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include "mcpcxx/json.hpp"

namespace mcpcxx::skills {

/// The frontmatter between the leading `---` line and the next `---` (or `...`) line of
/// `text`, as a JSON object. Throws std::invalid_argument "line N: what is wrong; what to do"
/// (N counts the lines of `text` from 1) when `text` has no frontmatter or it cannot be read.
json parse_frontmatter(std::string_view text);

}  // namespace mcpcxx::skills
