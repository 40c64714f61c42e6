// compose_tool_error_message: "<operation> failed: <resource>. <reason>. <next step>. <retry
// guidance>." Parts are trimmed, empty parts skipped, and each sentence gets exactly one end mark.
#include <string>
#include <vector>

#include "mcpcxx/errors.hpp"

namespace mcpcxx {

namespace {

std::string_view trim(std::string_view s) noexcept {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

/// Drops trailing separators and returns whether the text already ends a sentence.
bool strip_end(std::string& s) {
  while (!s.empty() && (s.back() == ',' || s.back() == ';' || s.back() == ':' || s.back() == ' ')) {
    s.pop_back();
  }
  return !s.empty() && (s.back() == '.' || s.back() == '!' || s.back() == '?');
}

/// Upper-cases the first letter when the first word is a plain lowercase word ("it", "verify"),
/// never touching identifiers such as "acme/widgets" or "iPhone".
void capitalize(std::string& s) {
  std::size_t end = 0;
  while (end < s.size() && s[end] >= 'a' && s[end] <= 'z') ++end;
  if (end == 0 || (end < s.size() && s[end] != ' ')) return;
  s[0] = static_cast<char>(s[0] - 'a' + 'A');
}

void append_sentence(std::string& out, std::string sentence, bool sentence_start) {
  if (sentence.find_first_not_of(".!?,;: ") == std::string::npos) return;  // punctuation only
  if (sentence_start) capitalize(sentence);
  const bool ended = strip_end(sentence);
  if (!out.empty()) out.push_back(' ');
  out += sentence;
  if (!ended) out.push_back('.');
}

}  // namespace

std::string compose_tool_error_message(const tool_error_parts& parts) {
  const std::string_view operation = trim(parts.operation);
  const std::string_view resource = trim(parts.resource);
  std::string out;
  if (!operation.empty()) {
    std::string head = std::string(operation) + " failed";
    if (!resource.empty()) head += ": " + std::string(resource);
    append_sentence(out, std::move(head), false);
  } else {
    append_sentence(out, std::string(resource), true);
  }
  for (const std::string* part : {&parts.reason, &parts.next_step, &parts.retry_guidance}) {
    append_sentence(out, std::string(trim(*part)), true);
  }
  return out.empty() ? std::string("The operation failed.") : out;
}

}  // namespace mcpcxx
