// Error types: wire names, tool_error details, protocol_error code policy, not-found.
#include "mcpcxx/errors.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "mcpcxx/context.hpp"
#include "mcpcxx/error_codes.hpp"

namespace mcpcxx {
namespace {

TEST(Categories, RoundTripEveryValue) {
  const std::pair<error_category, const char*> all[] = {
      {error_category::invalid_arguments, "invalid_arguments"},
      {error_category::not_found, "not_found"},
      {error_category::permission_denied, "permission_denied"},
      {error_category::conflict, "conflict"},
      {error_category::precondition_failed, "precondition_failed"},
      {error_category::rate_limited, "rate_limited"},
      {error_category::unavailable, "unavailable"},
      {error_category::timeout, "timeout"},
      {error_category::internal, "internal"}};
  for (const auto& [value, name] : all) {
    EXPECT_EQ(to_string(value), name);
    EXPECT_EQ(parse_error_category(name), value);
  }
}

TEST(Categories, UnknownNamesAreRejected) {
  for (const char* s : {"", "Internal", "not-found", "internal ", "ok"}) {
    EXPECT_EQ(parse_error_category(s), std::nullopt) << s;
  }
}

TEST(Effects, RoundTripEveryValue) {
  const std::pair<error_effect, const char*> all[] = {{error_effect::not_applied, "not_applied"},
                                                      {error_effect::unknown, "unknown"},
                                                      {error_effect::partial, "partial"},
                                                      {error_effect::applied, "applied"}};
  for (const auto& [value, name] : all) {
    EXPECT_EQ(to_string(value), name);
    EXPECT_EQ(parse_error_effect(name), value);
  }
  EXPECT_EQ(parse_error_effect("notapplied"), std::nullopt);
  EXPECT_EQ(parse_error_effect(""), std::nullopt);
}

TEST(LogLevels, RoundTripInOrder) {
  const char* names[] = {"debug", "info",     "notice", "warning",
                         "error", "critical", "alert",  "emergency"};
  for (int i = 0; i < 8; ++i) {
    const auto level = static_cast<log_level>(i);
    EXPECT_EQ(to_string(level), names[i]);
    EXPECT_EQ(parse_log_level(names[i]), level);
  }
  EXPECT_LT(*parse_log_level("debug"), *parse_log_level("emergency"));
}

TEST(LogLevels, InvalidNamesAreRejected) {
  for (const char* s : {"", "warn", "DEBUG", "fatal", "trace", "info "}) {
    EXPECT_EQ(parse_log_level(s), std::nullopt) << s;
  }
}

TEST(ToolError, DefaultsAndExactMessage) {
  const tool_error e("Export failed: storage is down. Retry later.");
  EXPECT_EQ(e.message(), "Export failed: storage is down. Retry later.");
  EXPECT_STREQ(e.what(), "Export failed: storage is down. Retry later.");
  EXPECT_EQ(e.category(), error_category::internal);
  EXPECT_FALSE(e.retryable());
  EXPECT_EQ(e.effect(), error_effect::not_applied);
  EXPECT_FALSE(e.resource().has_value());
  EXPECT_FALSE(e.retry_after_seconds().has_value());
  EXPECT_EQ(e.details(),
            json({{"category", "internal"}, {"retryable", false}, {"effect", "not_applied"}}));
}

TEST(ToolError, DetailsWithEveryField) {
  const tool_error e("Issue update failed: ENG-42 is locked.", error_category::conflict, true,
                     "ENG-42", error_effect::partial, 2.5);
  EXPECT_EQ(e.details(), json({{"category", "conflict"},
                               {"retryable", true},
                               {"effect", "partial"},
                               {"resource", "ENG-42"},
                               {"retryAfterSeconds", 2.5}}));
}

TEST(ToolError, ZeroRetryAfterIsKept) {
  const tool_error e("m", error_category::rate_limited, true, std::nullopt,
                     error_effect::not_applied, 0.0);
  EXPECT_EQ(e.details().at("retryAfterSeconds"), 0.0);
  EXPECT_FALSE(e.details().contains("resource"));
}

TEST(ToolError, RejectsUnusableRetryAfter) {
  for (double bad :
       {-1.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    try {
      tool_error e("m", error_category::rate_limited, true, std::nullopt, error_effect::not_applied,
                   bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::invalid_argument& ex) {
      EXPECT_NE(std::string(ex.what()).find("retry_after_seconds"), std::string::npos);
    }
  }
}

TEST(ToolError, IsCatchableAsRuntimeError) {
  try {
    throw tool_error("x", error_category::not_found);
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "x");
  }
}

TEST(ProtocolError, AcceptsApplicationAndPermittedSpecCodes) {
  for (int code : {-32602, -32603, -32002, -31999, -32769, 1, 0, 42}) {
    const protocol_error e(code, "msg", json{{"k", 1}});
    EXPECT_EQ(e.code(), code);
    EXPECT_EQ(e.message(), "msg");
    EXPECT_STREQ(e.what(), "msg");
    EXPECT_EQ(e.data(), json({{"k", 1}}));
  }
}

TEST(ProtocolError, DataDefaultsToNull) { EXPECT_TRUE(protocol_error(1, "m").data().is_null()); }

TEST(ProtocolError, RefusesReservedCodesNamingCodeAndRange) {
  for (int code :
       {-32700, -32600, -32601, -32000, -32020, -32021, -32022, -32042, -32768, -32099}) {
    try {
      protocol_error e(code, "m");
      ADD_FAILURE() << "accepted " << code;
    } catch (const std::invalid_argument& ex) {
      const std::string what = ex.what();
      EXPECT_NE(what.find(std::to_string(code)), std::string::npos) << what;
      EXPECT_NE(what.find("[-32768, -32000]"), std::string::npos) << what;
    }
  }
}

TEST(ProtocolError, PolicyMatchesIsReservedForSpec) {
  for (int code = -32800; code <= -31990; ++code) {
    bool refused = false;
    try {
      protocol_error e(code, "m");
    } catch (const std::invalid_argument&) {
      refused = true;
    }
    EXPECT_EQ(refused, error_code::is_reserved_for_spec(code)) << code;
  }
}

TEST(ResourceNotFound, CarriesTheUri) {
  const resource_not_found e("file:///missing.txt");
  EXPECT_EQ(e.uri(), "file:///missing.txt");
  EXPECT_NE(std::string(e.what()).find("file:///missing.txt"), std::string::npos);
}

TEST(UnexpectedError, SummaryIsWhatDetailIsSeparate) {
  const unexpected_error e("ValueError: boom", "Traceback ...");
  EXPECT_EQ(e.summary(), "ValueError: boom");
  EXPECT_EQ(e.detail(), "Traceback ...");
  EXPECT_STREQ(e.what(), "ValueError: boom");
}

}  // namespace
}  // namespace mcpcxx
