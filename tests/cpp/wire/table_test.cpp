// The situation table's shape: unique ids, a 1:1 enum mapping, sane codes and statuses, and
// templates whose every placeholder renders.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "mcpcxx/error_codes.hpp"

#include "wire/era.hpp"
#include "wire/situation.hpp"

namespace mcpcxx::wire {
namespace {

// Every placeholder name of a template with its format ("" when none).
std::vector<std::pair<std::string, std::string>> placeholders(std::string_view tpl) {
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t i = 0; i < tpl.size(); ++i) {
    if (tpl[i] != '{') continue;
    std::size_t j = i + 1;
    while (j < tpl.size() && (std::isalnum(static_cast<unsigned char>(tpl[j])) || tpl[j] == '_')) {
      ++j;
    }
    if (j == i + 1 || j >= tpl.size()) continue;
    std::string name(tpl.substr(i + 1, j - i - 1));
    std::string format;
    if (tpl[j] == ':') {
      const std::size_t k = tpl.find('}', j);
      format = std::string(tpl.substr(j + 1, k - j - 1));
      j = k;
    }
    if (tpl[j] == '}') out.emplace_back(name, format);
  }
  return out;
}

// Arguments that fill every placeholder and data key of `r` with a value of a fitting type.
json full_args(const row& r) {
  json args = json::object();
  for (const auto& [name, format] : placeholders(r.message)) {
    if (format == "list") {
      args[name] = json::array({"a", "b"});
    } else if (format == "g") {
      args[name] = 1.5;
    } else {
      args[name] = "value-of-" + name;
    }
  }
  std::string_view keys = r.data_keys;
  if (!keys.empty() && keys.front() == '=') {
    args[std::string(keys.substr(1))] = json{{"k", 1}};
  } else {
    while (!keys.empty()) {
      const auto sp = keys.find(' ');
      const std::string key(keys.substr(0, sp));
      if (!args.contains(key)) args[key] = "data-" + key;
      keys.remove_prefix(sp == std::string_view::npos ? keys.size() : sp + 1);
    }
  }
  if (r.code == k_code_from_args) args["code"] = -31999;
  if (r.which == situation::T6_tool_reported_error) args["result"] = {{"isError", true}};
  return args;
}

TEST(SituationTable, IdsAreUniqueAndMapOneToOne) {
  std::set<std::string_view> ids;
  for (std::size_t i = 0; i < rows().size(); ++i) {
    const row& r = rows()[i];
    EXPECT_EQ(static_cast<std::size_t>(r.which), i) << r.id;
    EXPECT_TRUE(ids.insert(r.id).second) << "duplicate id " << r.id;
    EXPECT_EQ(&row_of(r.which), &r);
    EXPECT_EQ(find_row(r.id), &r);
  }
  EXPECT_EQ(find_row("P999"), nullptr);
}

TEST(SituationTable, IdPrefixMatchesShapeAndEnumName) {
  for (const row& r : rows()) {
    ASSERT_FALSE(r.id.empty());
    const char p = r.id.front();
    EXPECT_TRUE(p == 'P' || p == 'T' || p == 'H') << r.id;
    EXPECT_EQ(r.kind == shape::tool_result, p == 'T') << r.id;
    EXPECT_FALSE(r.description.empty()) << r.id;
    EXPECT_FALSE(r.message.empty()) << r.id;
    // No cell may break the generated markdown table.
    EXPECT_EQ(r.description.find('|'), std::string_view::npos) << r.id;
    EXPECT_EQ(r.message.find('|'), std::string_view::npos) << r.id;
  }
}

TEST(SituationTable, CodesAreNamedConstantsAndStatusesAreHttp) {
  const std::set<int> known = {error_code::parse_error,
                               error_code::invalid_request,
                               error_code::method_not_found,
                               error_code::invalid_params,
                               error_code::internal_error,
                               error_code::resource_not_found_legacy,
                               error_code::url_elicitation_required,
                               error_code::header_mismatch,
                               error_code::missing_required_client_capability,
                               error_code::unsupported_protocol_version,
                               error_code::rate_limited};
  for (const row& r : rows()) {
    if (r.kind == shape::error_object && r.code != k_code_from_args) {
      EXPECT_TRUE(known.count(r.code)) << r.id << " code " << r.code;
    }
    for (int status : {r.http_legacy, r.http_modern}) {
      EXPECT_GE(status, 200) << r.id;
      EXPECT_LT(status, 600) << r.id;
    }
    EXPECT_EQ(http_status(r.which, false), r.http_legacy);
    EXPECT_EQ(http_status(r.which, true), r.http_modern);
    EXPECT_EQ(http_status(r.id, true), r.http_modern);
    EXPECT_EQ(http_status(r.id, false), r.http_legacy);
  }
  EXPECT_EQ(http_status(std::string_view{}, true), 200);
  EXPECT_EQ(http_status(std::string_view{"P8"}, true), 404);
  EXPECT_EQ(http_status(std::string_view{"P8"}, false), 200);
  EXPECT_EQ(http_status(std::string_view{"Z1"}, false), 500);
}

TEST(SituationTable, CodecRowsCarryTheirJsonRpcPrefix) {
  for (const row& r : rows()) {
    if (r.code == error_code::parse_error) {
      EXPECT_EQ(r.message.rfind("Parse error: ", 0), 0u) << r.id;
    }
    const bool codec_request =
        (r.id.rfind("P2", 0) == 0 || r.id.rfind("P3", 0) == 0) &&
        (r.id.size() == 2 || std::isalpha(static_cast<unsigned char>(r.id[2])));
    if (codec_request && r.code == error_code::invalid_request) {
      EXPECT_EQ(r.message.rfind("Invalid request: ", 0), 0u) << r.id;
    }
  }
}

TEST(SituationTable, EveryRowRendersWithEveryPlaceholderFilled) {
  const std::size_t misses = missing_argument_count();
  for (const row& r : rows()) {
    const json args = full_args(r);
    if (r.kind == shape::error_object) {
      const jsonrpc::error_object e = render(r.which, args);
      EXPECT_NE(e.code, 0) << r.id;
      if (r.message.find('?') == std::string_view::npos) {
        EXPECT_EQ(e.message.find('?'), std::string::npos) << r.id << ": " << e.message;
      }
      EXPECT_EQ(e.message.find('{' + std::string("value")), std::string::npos) << r.id;
      for (const auto& [name, format] : placeholders(r.message)) {
        if (format.empty()) {
          EXPECT_NE(e.message.find("value-of-" + name), std::string::npos) << r.id << " " << name;
        }
      }
      std::string_view keys = r.data_keys;
      if (keys.empty()) {
        EXPECT_TRUE(e.data.is_null()) << r.id;
      }
      if (!keys.empty() && keys.front() != '=') {
        for (const auto& [key, value] : e.data.items()) {
          EXPECT_FALSE(value.is_null()) << key;
        }
      }
    } else {
      const json result = render_tool_result(r.which, args, false);
      ASSERT_TRUE(result.is_object()) << r.id;
      EXPECT_TRUE(result.value("isError", false)) << r.id;
    }
  }
  EXPECT_EQ(missing_argument_count(), misses);
}

TEST(SituationTable, DataKeysAreAllPresent) {
  const jsonrpc::error_object e =
      render(situation::P9_method_not_in_era, {{"method", "ping"}, {"protocolVersion", "V"}});
  EXPECT_EQ(e.data, (json{{"method", "ping"}, {"protocolVersion", "V"}}));
  // "supported" is filled from the version list when the caller leaves it out.
  const jsonrpc::error_object meta =
      render(situation::P11_missing_modern_meta, {{"missing", json::array({"a"})}});
  EXPECT_EQ(meta.data["supported"], supported_versions_json());
}

TEST(SituationTable, TemplatesHaveWellFormedOptionalSegments) {
  for (const row& r : rows()) {
    int depth = 0;
    for (const char c : r.message) {
      if (c == '[') ++depth;
      if (c == ']') --depth;
      EXPECT_GE(depth, 0) << r.id;
      EXPECT_LE(depth, 1) << r.id;
    }
    EXPECT_EQ(depth, 0) << r.id;
  }
}

TEST(Eras, OneListOfVersions) {
  EXPECT_TRUE(is_legacy_version("2025-11-25"));
  EXPECT_TRUE(is_legacy_version("2024-11-05"));
  EXPECT_FALSE(is_legacy_version("2026-07-28"));
  EXPECT_FALSE(is_legacy_version("2025-11-26"));
  EXPECT_FALSE(is_legacy_version(""));
  EXPECT_TRUE(is_modern_version("2026-07-28"));
  EXPECT_TRUE(is_supported_version("2025-03-26"));
  EXPECT_EQ(supported_versions_json().size(), std::size(k_versions));
  EXPECT_EQ(supported_versions_json().front(), "2026-07-28");
}

}  // namespace
}  // namespace mcpcxx::wire
