// Implementation of violations_json_text.
#include "registry/violations_text.hpp"

#include "jsonrpc/plain_text.hpp"

namespace mcpcxx::detail {

std::string violations_json_text(const schema::validation_result& result) {
  std::string out;
  out.reserve(32 + result.violations.size() * 160);
  out.push_back('[');
  for (const auto& v : result.violations) {
    if (out.size() > 1) out.push_back(',');
    // Members in key order, as a json object (a sorted map) writes them.
    out.append(R"({"instanceLocation":)");
    jsonrpc::append_quoted(out, v.instance_location);
    out.append(R"(,"keyword":)");
    jsonrpc::append_quoted(out, v.keyword);
    out.append(R"(,"keywordLocation":)");
    jsonrpc::append_quoted(out, v.keyword_location);
    out.append(R"(,"message":)");
    jsonrpc::append_quoted(out, v.message);
    out.push_back('}');
  }
  out.push_back(']');
  return out;
}

}  // namespace mcpcxx::detail
