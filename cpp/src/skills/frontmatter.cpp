// A YAML subset reader for SKILL.md frontmatter (see frontmatter.hpp for what it accepts).
#include "skills/frontmatter.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "skills/yaml_scalars.hpp"

namespace mcpcxx::skills {

namespace {

// One physical line: its indentation, its text after it (trailing \r and blanks kept out) and the
// whole line for block scalars, which keep indentation beyond their own.
struct fm_line {
  std::size_t indent = 0;
  std::string_view text;
  std::string_view raw;
  std::size_t number = 0;
};

constexpr std::size_t k_max_nesting = 32;

[[noreturn]] void fail(std::size_t line, const std::string& what) {
  throw std::invalid_argument("line " + std::to_string(line) + ": " + what);
}

bool blank_or_comment(const fm_line& l) { return l.text.empty() || l.text.front() == '#'; }

// "key: value" -> the position of the separating colon; npos when the line is no mapping entry.
std::size_t key_colon(std::string_view t) {
  if (t.empty() || t.front() == '"' || t.front() == '\'') return std::string_view::npos;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == ':' && (i + 1 == t.size() || t[i + 1] == ' ')) return i;
    if (t[i] == '#' && i > 0 && t[i - 1] == ' ') return std::string_view::npos;
  }
  return std::string_view::npos;
}

bool is_sequence_entry(std::string_view t) {
  return !t.empty() && t.front() == '-' && (t.size() == 1 || t[1] == ' ');
}

class reader {
 public:
  explicit reader(std::vector<fm_line> lines) : lines_(std::move(lines)) {}

  json document() {
    skip_blank();
    if (pos_ == lines_.size()) return json::object();
    const fm_line& first = lines_[pos_];
    if (first.indent != 0 || is_sequence_entry(first.text) || key_colon(first.text) == npos) {
      fail(first.number,
           "the frontmatter must be a mapping of 'key: value' lines starting in the first column");
    }
    return mapping(0, 0);
  }

 private:
  static constexpr std::size_t npos = std::string_view::npos;

  void skip_blank() {
    while (pos_ < lines_.size() && blank_or_comment(lines_[pos_])) ++pos_;
  }
  const fm_line* next_content() {
    skip_blank();
    return pos_ < lines_.size() ? &lines_[pos_] : nullptr;
  }
  static void check_depth(std::size_t depth, std::size_t line) {
    if (depth > k_max_nesting) fail(line, "nesting deeper than 32 levels is not supported");
  }

  json mapping(std::size_t indent, std::size_t depth) {
    json out = json::object();
    while (const fm_line* l = next_content()) {
      if (l->indent < indent) break;
      if (l->indent > indent) fail(l->number, "unexpected indentation; align keys of one mapping");
      check_depth(depth, l->number);
      const std::size_t colon = key_colon(l->text);
      if (colon == npos) {
        fail(l->number, is_sequence_entry(l->text)
                            ? "a list item where a 'key: value' line was expected"
                            : "expected 'key: value' (a value containing ': ' must be quoted)");
      }
      std::string key = read_key(l->text.substr(0, colon), l->number);
      if (out.contains(key)) fail(l->number, "duplicate key '" + key + "'; keep one");
      std::string_view rest = trim(l->text.substr(colon + 1));
      out[key] = value(rest, indent, depth + 1);
    }
    return out;
  }

  static std::string read_key(std::string_view k, std::size_t line) {
    k = trim(k);
    if (k.empty()) fail(line, "a mapping key is empty");
    if (k.front() == '?') fail(line, "complex keys ('? ') are not supported");
    if (std::string_view("[{&*!|>%@`").find(k.front()) != npos) {
      fail(line, "a key may not start with '" + std::string(1, k.front()) + "'; quote it");
    }
    return std::string(k);
  }

  // The value after "key:" or "- " on the current line, whose owner sits at `indent`.
  json value(std::string_view rest, std::size_t indent, std::size_t depth, bool in_item = false) {
    const std::size_t line = lines_[pos_].number;
    if (rest.empty() || rest.front() == '#') {
      ++pos_;
      return nested(indent, depth, in_item);
    }
    const char c = rest.front();
    if (c == '&' || c == '*' || c == '!') {
      fail(line, "anchors, aliases and tags (&, *, !) are not supported; write the value out");
    }
    if (c == '|' || c == '>') return block_scalar(rest, indent, line);
    if (c == '"' || c == '\'') return quoted(rest);
    if (c == '[' || c == '{') return flow(rest, indent, depth);
    return plain(rest, indent, line);
  }

  // A value on the lines below its key: a mapping or a list more indented (a list may also sit
  // at the key's own indentation), else null.
  json nested(std::size_t indent, std::size_t depth, bool in_item) {
    const fm_line* l = next_content();
    if (l == nullptr) return nullptr;
    if (is_sequence_entry(l->text) && l->indent >= indent) {
      // A list at the key's column belongs to the key only in a mapping, not after "- ".
      if (l->indent == indent && in_item) return nullptr;
      return sequence(l->indent, depth);
    }
    if (l->indent <= indent) return nullptr;
    return mapping(l->indent, depth);
  }

  json sequence(std::size_t indent, std::size_t depth) {
    json out = json::array();
    while (const fm_line* l = next_content()) {
      if (l->indent != indent || !is_sequence_entry(l->text)) {
        if (l->indent > indent) fail(l->number, "unexpected indentation inside a list");
        break;
      }
      check_depth(depth, l->number);
      out.push_back(item(indent, depth + 1));
    }
    return out;
  }

  // One "- ..." item: a scalar, a nested block below, or a compact mapping or list on the line.
  json item(std::size_t indent, std::size_t depth) {
    fm_line& l = lines_[pos_];
    std::size_t skip = 1;
    while (skip < l.text.size() && l.text[skip] == ' ') ++skip;
    std::string_view rest = l.text.substr(skip);
    if (!rest.empty() && rest.front() != '#' &&
        (key_colon(rest) != npos || is_sequence_entry(rest))) {
      // Re-read the rest of the line as the first line of a block at its own column.
      l.indent += skip;
      l.text = rest;
      return is_sequence_entry(rest) ? sequence(l.indent, depth) : mapping(l.indent, depth);
    }
    return value(trim(rest), indent, depth, true);
  }

  json plain(std::string_view first, std::size_t indent, std::size_t line) {
    if (std::string_view("@`%,]}").find(first.front()) != npos ||
        (first.front() == '-' && first.size() == 1) || first.substr(0, 2) == "? ") {
      fail(line, "a value may not start with '" + std::string(1, first.front()) + "'; quote it");
    }
    std::string text(strip_comment(first, line));
    bool multi = false;
    ++pos_;
    std::size_t blanks = 0;
    while (pos_ < lines_.size()) {
      const fm_line& l = lines_[pos_];
      if (l.text.empty()) {
        ++blanks;
        ++pos_;
        continue;
      }
      if (l.indent <= indent || l.text.front() == '#') break;
      text += blanks > 0 ? std::string(blanks, '\n') : std::string(" ");
      text += strip_comment(l.text, l.number);
      blanks = 0;
      multi = true;
      ++pos_;
    }
    return multi ? json(text) : resolve_plain(text, line);
  }

  static std::string_view strip_comment(std::string_view t, std::size_t line) {
    if (key_colon(t) != npos || t.find(": ") != npos) {
      fail(line, "a plain value contains ': '; put the whole value in quotes");
    }
    const std::size_t hash = t.find(" #");
    return trim(hash == npos ? t : t.substr(0, hash));
  }

  json quoted(std::string_view first) {
    const auto line = [this, first](std::size_t k) -> std::optional<std::string_view> {
      if (k == 0) return first;
      if (pos_ + k >= lines_.size()) return std::nullopt;
      return lines_[pos_ + k].text;
    };
    std::size_t used = 0;
    std::string v = read_quoted(line, lines_[pos_].number, used);
    pos_ += used;
    return json(std::move(v));
  }

  json block_scalar(std::string_view header, std::size_t indent, std::size_t line) {
    const block_header h = read_block_header(header, line);
    ++pos_;
    std::vector<std::string_view> raw;
    std::size_t content_indent = h.explicit_indent ? indent + h.explicit_indent : 0;
    while (pos_ < lines_.size()) {
      const fm_line& l = lines_[pos_];
      const bool empty = trim(l.raw).empty();
      if (!empty) {
        if (content_indent == 0) content_indent = l.indent;
        if (l.indent < content_indent || l.indent <= indent) break;
      }
      raw.push_back(l.raw);
      ++pos_;
    }
    return json(render_block(h, raw, content_indent));
  }

  json flow(std::string_view rest, std::size_t indent, std::size_t depth) {
    const std::size_t line = lines_[pos_].number;
    std::string joined(rest);
    ++pos_;
    while (!flow_balanced(joined)) {
      if (pos_ == lines_.size() || lines_[pos_].indent <= indent) {
        fail(line, "a [ ] or { } value is not closed; close it or quote the value");
      }
      joined += ' ';
      joined += lines_[pos_].text;
      ++pos_;
    }
    return parse_flow(joined, line, depth);
  }

  std::vector<fm_line> lines_;
  std::size_t pos_ = 0;
};

std::size_t indentation(std::string_view raw, std::size_t number) {
  std::size_t n = 0;
  while (n < raw.size() && raw[n] == ' ') ++n;
  if (n < raw.size() && raw[n] == '\t') {
    fail(number, "a tab in the indentation; indent with spaces");
  }
  return n;
}

std::string_view rtrim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

bool fence(std::string_view raw, std::string_view mark) { return rtrim(raw) == mark; }

// The lines of `text` split at '\n' (after a final '\n' an empty one).
std::vector<std::string_view> physical_lines(std::string_view text) {
  std::vector<std::string_view> physical;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    physical.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return physical;
}

}  // namespace

json parse_frontmatter(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte order mark
  const std::vector<std::string_view> physical = physical_lines(text);
  if (physical.empty() || !fence(physical.front(), "---")) {
    fail(1, "SKILL.md must begin with a '---' line opening its YAML frontmatter");
  }
  std::vector<fm_line> lines;
  for (std::size_t i = 1; i < physical.size(); ++i) {
    std::string_view raw = physical[i];
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    if (fence(raw, "---") || fence(raw, "...")) return reader(std::move(lines)).document();
    if (i == 1 && raw.substr(0, 1) == "%") fail(i + 1, "YAML directives are not supported");
    const std::size_t indent = indentation(raw, i + 1);
    lines.push_back({indent, rtrim(raw.substr(indent)), raw, i + 1});
  }
  fail(1, "the frontmatter opened on line 1 is never closed; end it with a '---' line");
}

}  // namespace mcpcxx::skills
