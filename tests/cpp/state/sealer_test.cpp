// Sealed requestState: every refusal path, key rotation, replicas sharing a key, the codecs.
#include "state/sealer.hpp"

#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "mcpcxx/context.hpp"

#include "state/codec.hpp"
#include "state/key_ring.hpp"

namespace mcpcxx::state {
namespace {

using namespace std::chrono_literals;
using clock = sealer::clock;

// Two fixed 32-byte keys in the two base64 alphabets a configuration may use.
const std::string k_key_a = base64url_encode(std::string(32, 'A'));
const std::string k_key_b = "QkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkI=";  // 32 x 'B', base64

const clock::time_point k_now = clock::time_point(std::chrono::seconds(1'800'000'000));

binding call_binding(const json& principal = nullptr) {
  return bind_request("tools/call", {{"name", "deploy"}, {"arguments", {{"env", "prod"}}}},
                      principal_identity(principal));
}

sealer make(const std::string& current, const std::vector<std::string>& previous = {},
            std::chrono::seconds ttl = 600s) {
  return sealer(key_ring::from_config(current, previous), ttl);
}

TEST(Sealer, RoundTripReturnsThePayload) {
  const sealer s = make(k_key_a);
  const json payload = {{"answers", {{"ask-0", {{"action", "accept"}}}}}};
  const std::string text = s.seal(call_binding(), payload, k_now);
  const open_result r = s.open(text, call_binding(), k_now + 10s);
  ASSERT_TRUE(r.ok) << to_string(r.why);
  EXPECT_EQ(r.payload, payload);
}

TEST(Sealer, TextIsBase64UrlWithoutPaddingAndHidesThePayload) {
  const sealer s = make(k_key_a);
  const std::string text = s.seal(call_binding(), {{"secret", "hunter2"}}, k_now);
  EXPECT_EQ(
      text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
      std::string::npos);
  const auto raw = base64_decode_any(text);
  ASSERT_TRUE(raw);
  EXPECT_EQ(raw->find("hunter2"), std::string::npos);
  EXPECT_EQ(raw->find("tools/call"), std::string::npos);
  EXPECT_EQ(static_cast<unsigned char>((*raw)[0]), 1U);  // format version
}

TEST(Sealer, TwoSealsOfTheSameStateDiffer) {
  const sealer s = make(k_key_a);
  EXPECT_NE(s.seal(call_binding(), 1, k_now), s.seal(call_binding(), 1, k_now));
}

TEST(Sealer, EveryFlippedByteIsNotAuthentic) {
  const sealer s = make(k_key_a);
  const std::string raw = *base64_decode_any(s.seal(call_binding(), {{"a", 1}}, k_now));
  for (std::size_t i = 1; i < raw.size(); ++i) {  // byte 0 is the version: malformed instead
    std::string bad = raw;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    const open_result r = s.open(base64url_encode(bad), call_binding(), k_now);
    ASSERT_FALSE(r.ok) << "byte " << i;
    EXPECT_EQ(r.why, refusal::not_authentic) << "byte " << i;
  }
}

TEST(Sealer, AppendedTextIsRefused) {
  const sealer s = make(k_key_a);
  const std::string text = s.seal(call_binding(), 1, k_now);
  const open_result r = s.open(text + "-TAMPERED", call_binding(), k_now);
  ASSERT_FALSE(r.ok);
  EXPECT_TRUE(r.why == refusal::not_authentic || r.why == refusal::malformed);
}

TEST(Sealer, ExpiryMovedByAnAttackerIsNotAuthentic) {
  const sealer s = make(k_key_a);
  std::string raw = *base64_decode_any(s.seal(call_binding(), 1, k_now));
  raw[1] = static_cast<char>(0x7f);  // expiry far in the future
  EXPECT_EQ(s.open(base64url_encode(raw), call_binding(), k_now + 1h).why, refusal::not_authentic);
}

TEST(Sealer, MalformedTextIsRefusedAsMalformed) {
  const sealer s = make(k_key_a);
  EXPECT_EQ(s.open("", call_binding(), k_now).why, refusal::malformed);
  EXPECT_EQ(s.open("not base64 at all!", call_binding(), k_now).why, refusal::malformed);
  EXPECT_EQ(s.open("AQID", call_binding(), k_now).why, refusal::malformed);  // too short
  std::string raw = *base64_decode_any(s.seal(call_binding(), 1, k_now));
  raw[0] = 2;  // unknown format version
  EXPECT_EQ(s.open(base64url_encode(raw), call_binding(), k_now).why, refusal::malformed);
  EXPECT_EQ(s.open(std::string(sealer::k_max_text + 1, 'A'), call_binding(), k_now).why,
            refusal::malformed);
}

TEST(Sealer, ExpiredStateSaysHowLongAgo) {
  const sealer s = make(k_key_a, {}, 60s);
  const std::string text = s.seal(call_binding(), 1, k_now);
  EXPECT_TRUE(s.open(text, call_binding(), k_now + 59s).ok);
  const open_result r = s.open(text, call_binding(), k_now + 75s);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.why, refusal::expired);
  EXPECT_EQ(r.expired_for_s, 15);
}

TEST(Sealer, TamperingWinsOverExpiry) {
  const sealer s = make(k_key_a, {}, 60s);
  std::string raw = *base64_decode_any(s.seal(call_binding(), 1, k_now));
  raw.back() = static_cast<char>(raw.back() ^ 0x80);
  EXPECT_EQ(s.open(base64url_encode(raw), call_binding(), k_now + 1h).why, refusal::not_authentic);
}

TEST(Sealer, ForeignKeyIsNotAuthentic) {
  const std::string text = make(k_key_a).seal(call_binding(), 1, k_now);
  EXPECT_EQ(make(k_key_b).open(text, call_binding(), k_now).why, refusal::not_authentic);
  const sealer random_one(key_ring::random(), 600s);
  EXPECT_EQ(random_one.open(text, call_binding(), k_now).why, refusal::not_authentic);
}

TEST(Sealer, RandomKeysDifferPerServer) {
  const sealer one(key_ring::from_config("", {}), 600s);
  const sealer two(key_ring::from_config("", {}), 600s);
  const std::string text = one.seal(call_binding(), 1, k_now);
  EXPECT_TRUE(one.open(text, call_binding(), k_now).ok);
  EXPECT_EQ(two.open(text, call_binding(), k_now).why, refusal::not_authentic);
}

TEST(Sealer, ReplicasSharingAKeyOpenEachOthersStates) {
  const sealer replica1 = make(k_key_a);
  const sealer replica2 = make(k_key_a);
  const std::string text = replica1.seal(call_binding(), {{"n", 1}}, k_now);
  const open_result r = replica2.open(text, call_binding(), k_now + 1s);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.payload, json({{"n", 1}}));
}

TEST(Sealer, RotationKeepsPreviousStatesAndSealsWithTheNewKey) {
  const std::string before = make(k_key_a).seal(call_binding(), "old", k_now);
  const sealer rotated = make(k_key_b, {k_key_a});
  const open_result r = rotated.open(before, call_binding(), k_now);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.payload, "old");
  // New states are sealed with the new current key only.
  const std::string after = rotated.seal(call_binding(), "new", k_now);
  EXPECT_EQ(make(k_key_a).open(after, call_binding(), k_now).why, refusal::not_authentic);
  EXPECT_TRUE(make(k_key_b).open(after, call_binding(), k_now).ok);
  // Once the old key is retired its states are foreign.
  EXPECT_EQ(make(k_key_b).open(before, call_binding(), k_now).why, refusal::not_authentic);
}

TEST(Sealer, OtherMethodIsToldApart) {
  const sealer s = make(k_key_a);
  const json params = {{"name", "deploy"}};
  const std::string text = s.seal(bind_request("tools/call", params, ""), 1, k_now);
  const open_result r = s.open(text, bind_request("prompts/get", params, ""), k_now);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.why, refusal::other_method);
  EXPECT_EQ(r.sealed_method, "tools/call");
}

TEST(Sealer, OtherParamsAreToldApart) {
  const sealer s = make(k_key_a);
  const std::string text = s.seal(call_binding(), 1, k_now);
  const binding staging =
      bind_request("tools/call", {{"name", "deploy"}, {"arguments", {{"env", "staging"}}}}, "");
  EXPECT_EQ(s.open(text, staging, k_now).why, refusal::other_params);
  const binding other_tool =
      bind_request("tools/call", {{"name", "delete"}, {"arguments", {{"env", "prod"}}}}, "");
  EXPECT_EQ(s.open(text, other_tool, k_now).why, refusal::other_params);
}

TEST(Sealer, OtherPrincipalIsToldApart) {
  const sealer s = make(k_key_a);
  const std::string text = s.seal(call_binding({{"sub", "alice"}}), 1, k_now);
  EXPECT_TRUE(s.open(text, call_binding({{"sub", "alice"}}), k_now).ok);
  EXPECT_EQ(s.open(text, call_binding({{"sub", "mallory"}}), k_now).why, refusal::other_principal);
  EXPECT_EQ(s.open(text, call_binding(nullptr), k_now).why, refusal::other_principal);
  const std::string anonymous = s.seal(call_binding(nullptr), 1, k_now);
  EXPECT_EQ(s.open(anonymous, call_binding({{"sub", "alice"}}), k_now).why,
            refusal::other_principal);
}

TEST(Binding, DigestIgnoresRoundTripFieldsAndKeyOrder) {
  const json first = {{"name", "deploy"}, {"arguments", {{"a", 1}, {"b", 2}}}};
  json retry = json::parse(R"({"arguments":{"b":2,"a":1},"name":"deploy",
      "inputResponses":{"k":{"action":"accept"}},"requestState":"xyz",
      "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}})");
  EXPECT_EQ(bind_request("tools/call", first, "").params_digest,
            bind_request("tools/call", retry, "").params_digest);
  EXPECT_EQ(bind_request("tools/call", nullptr, "").params_digest,
            bind_request("tools/call", json::object(), "").params_digest);
  EXPECT_TRUE(bind_request("tools/call", first, "").principal_digest.empty());
}

TEST(KeyRing, RejectsBadKeysWithoutEchoingThem) {
  const std::string secret_short = base64url_encode(std::string(16, 's'));
  try {
    (void)key_ring::from_config(secret_short, {});
    FAIL() << "a 16-byte key was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("request_state_key"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("32"), std::string::npos);
    EXPECT_EQ(std::string(e.what()).find(secret_short), std::string::npos);
  }
  EXPECT_THROW((void)key_ring::from_config("%%%not-base64%%%", {}), std::invalid_argument);
  try {
    (void)key_ring::from_config(k_key_a, {k_key_b, "short"});
    FAIL() << "a bad previous key was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("request_state_previous_keys[1]"), std::string::npos);
  }
  EXPECT_THROW((void)key_ring::from_config("", {k_key_a}), std::invalid_argument);
}

TEST(KeyRing, OrdersCurrentFirst) {
  const key_ring ring = key_ring::from_config(k_key_a, {k_key_b});
  ASSERT_EQ(ring.all().size(), 2U);
  EXPECT_EQ(ring.current()[0], 'A');
  EXPECT_EQ(ring.all()[1][0], 'B');
  EXPECT_EQ(key_ring::random().all().size(), 1U);
}

TEST(KeyRing, RandomKeysAreFreshAndNotZero) {
  const key_ring one = key_ring::random();
  const key_ring two = key_ring::random();
  EXPECT_NE(one.current(), two.current());
  EXPECT_NE(one.current(), key_bytes{});
}

TEST(SealerOptions, NonPositiveTtlIsRefused) {
  EXPECT_THROW(sealer(key_ring::random(), 0s), std::invalid_argument);
}

TEST(Codec, Base64UrlRoundTripsEveryLength) {
  std::string bytes;
  for (int n = 0; n < 70; ++n) {
    const std::string text = base64url_encode(bytes);
    EXPECT_EQ(text.find('='), std::string::npos);
    const auto back = base64_decode_any(text);
    ASSERT_TRUE(back) << n;
    EXPECT_EQ(*back, bytes) << n;
    bytes.push_back(static_cast<char>(n * 37 + 250));
  }
  EXPECT_FALSE(base64_decode_any("A"));
  EXPECT_FALSE(base64_decode_any("AB CD"));
  EXPECT_EQ(*base64_decode_any("QQ=="), "A");
}

TEST(Codec, Sha256MatchesTheKnownVector) {
  EXPECT_EQ(base64url_encode(sha256("abc")), "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
}

}  // namespace
}  // namespace mcpcxx::state
