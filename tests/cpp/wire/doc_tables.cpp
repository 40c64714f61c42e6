// Markdown rendering of the situation table for docs/error-model.md.
#include "doc_tables.hpp"

#include <string>

#include "wire/situation.hpp"

namespace mcpcxx::wire::testing {

namespace {

std::string_view era_name(eras e) {
  switch (e) {
    case eras::legacy:
      return "legacy";
    case eras::modern:
      return "modern";
    case eras::both:
      break;
  }
  return "both";
}

// A template in backticks, with newlines shown as \n so a row stays on one line.
std::string code_span(std::string_view text) {
  std::string out = "`";
  for (const char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "`";
}

std::string data_cell(const row& r) {
  if (r.data_keys.empty()) return "—";
  if (r.data_keys.front() == '=') return "the " + std::string(r.data_keys.substr(1)) + " given";
  std::string out = "`{";
  for (const char c : r.data_keys) out += c == ' ' ? std::string(", ") : std::string(1, c);
  return out + "}`";
}

std::string code_cell(const row& r) {
  return r.code == k_code_from_args ? std::string("handler's") : std::to_string(r.code);
}

std::string golden_cell(const row& r) {
  return r.golden.empty() ? std::string("—") : "`" + std::string(r.golden) + "`";
}

std::string protocol_line(const row& r) {
  return "| " + std::string(r.id) + " | " + std::string(r.description) + " | " +
         std::string(era_name(r.era)) + " | " + code_cell(r) + " | " + code_span(r.message) +
         " | " + data_cell(r) + " | " + std::to_string(r.http_legacy) + " / " +
         std::to_string(r.http_modern) + " | " + golden_cell(r) + " |\n";
}

std::string retry_cell(const row& r) {
  if (r.retryable == k_from_args) return "the error's";
  return r.retryable == 1 ? "true" : "false";
}

std::string or_errors(std::string_view v) { return v.empty() ? "the error's" : std::string(v); }

std::string tool_line(const row& r) {
  return "| " + std::string(r.id) + " | " + std::string(r.description) + " | " +
         or_errors(r.category) + " | " + or_errors(r.effect) + " | " + retry_cell(r) + " | " +
         code_span(r.message) + " | " + data_cell(r) + " |\n";
}

std::string transport_line(const row& r) {
  return "| " + std::string(r.id) + " | " + std::string(r.description) + " | " +
         std::string(era_name(r.era)) + " | " + std::to_string(r.http_modern) + " | " +
         code_cell(r) + " | " + code_span(r.message) + " |\n";
}

char prefix_of(std::string_view section) {
  if (section == "protocol") return 'P';
  return section == "tool" ? 'T' : 'H';
}

std::string header_of(std::string_view section) {
  if (section == "protocol") {
    return "| # | Situation | Era | Code | Message template | data | HTTP legacy / modern | "
           "Golden |\n|---|---|---|---|---|---|---|---|\n";
  }
  if (section == "tool") {
    return "| # | Situation | category | effect | retryable | Text template | details |\n"
           "|---|---|---|---|---|---|---|\n";
  }
  return "| # | Situation | Era | HTTP | Code | Body message template |\n"
         "|---|---|---|---|---|---|\n";
}

}  // namespace

std::string render_section(std::string_view section) {
  std::string out = header_of(section);
  const char prefix = prefix_of(section);
  for (const row& r : rows()) {
    if (r.id.front() != prefix) continue;
    if (prefix == 'P') out += protocol_line(r);
    if (prefix == 'T') out += tool_line(r);
    if (prefix == 'H') out += transport_line(r);
  }
  return out;
}

std::string begin_marker(std::string_view section) {
  return "<!-- BEGIN generated " + std::string(section) +
         " table: edit cpp/src/wire/table.cpp, then run MCPCXX_WRITE_DOCS=1 mcpcxx_wire_tests "
         "--gtest_filter='ErrorModelDoc.*' -->\n";
}

std::string end_marker(std::string_view section) {
  return "<!-- END generated " + std::string(section) + " table -->\n";
}

std::string regenerate(std::string doc) {
  for (std::string_view section : k_sections) {
    const std::string begin = begin_marker(section);
    const auto b = doc.find(begin);
    const auto e = doc.find(end_marker(section));
    if (b == std::string::npos || e == std::string::npos || e < b) continue;
    doc.replace(b + begin.size(), e - b - begin.size(), render_section(section));
  }
  return doc;
}

}  // namespace mcpcxx::wire::testing
