// principal_identity(): what owns a principal's tasks, requestStates and legacy sessions. A
// refreshed or stepped-up token keeps it; another subject, issuer, client id or configured
// identity claim does not.
#include <string>

#include <gtest/gtest.h>

#include "mcpcxx/context.hpp"

namespace mcpcxx {
namespace {

// The JSON a verifier allows for alice, as Python's Principal.to_json() and a C++ verifier give it.
json alice(int iat, json scopes = {"issues:read"}) {
  return {{"sub", "alice"},
          {"scopes", std::move(scopes)},
          {"client_id", "cli-1"},
          {"exp", iat + 3600},
          {"claims",
           {{"iss", "https://as.example"},
            {"sub", "alice"},
            {"iat", iat},
            {"exp", iat + 3600},
            {"nbf", iat},
            {"jti", "jti-" + std::to_string(iat)},
            {"tid", "t-1"}}}};
}

TEST(PrincipalIdentity, NoPrincipalHasNoIdentity) { EXPECT_EQ(principal_identity(nullptr), ""); }

TEST(PrincipalIdentity, IsIssuerSubjectAndClientIdAsCompactJson) {
  EXPECT_EQ(principal_identity(alice(100)),
            R"({"client_id":"cli-1","iss":"https://as.example","sub":"alice"})");
}

TEST(PrincipalIdentity, ARefreshOrAStepUpKeepsIt) {
  const std::string first = principal_identity(alice(100));
  EXPECT_EQ(principal_identity(alice(4000)), first);
  EXPECT_EQ(principal_identity(alice(4000, {"issues:read", "issues:write"})), first);
}

TEST(PrincipalIdentity, AnotherSubjectIssuerOrClientIsAnotherIdentity) {
  const std::string first = principal_identity(alice(100));
  json other = alice(100);
  other["sub"] = "bob";
  EXPECT_NE(principal_identity(other), first);
  other = alice(100);
  other["claims"]["iss"] = "https://evil.example";
  EXPECT_NE(principal_identity(other), first);
  other = alice(100);
  other["client_id"] = "cli-2";
  EXPECT_NE(principal_identity(other), first);
  other.erase("client_id");
  EXPECT_NE(principal_identity(other), first) << "no client id is not client cli-1";
}

TEST(PrincipalIdentity, TopLevelMembersWinAndAzpStandsInForClientId) {
  const json top = {{"sub", "alice"}, {"iss", "A"}, {"client_id", "c"}};
  const json in_claims = {{"sub", "alice"}, {"claims", {{"iss", "A"}, {"azp", "c"}}}};
  EXPECT_EQ(principal_identity(top), principal_identity(in_claims));
  const json both = {{"sub", "alice"}, {"iss", "A"}, {"claims", {{"iss", "B"}}}};
  EXPECT_EQ(principal_identity(both), R"({"iss":"A","sub":"alice"})");
}

TEST(PrincipalIdentity, ConfiguredClaimsArePartOfIt) {
  const std::string first = principal_identity(alice(100), {"tid"});
  EXPECT_EQ(principal_identity(alice(4000), {"tid"}), first);
  json other_tenant = alice(100);
  other_tenant["claims"]["tid"] = "t-2";
  EXPECT_NE(principal_identity(other_tenant, {"tid"}), first);
  EXPECT_EQ(principal_identity(other_tenant), principal_identity(alice(100)))
      << "without the setting the tenant is not part of the identity";
  json no_tenant = alice(100);
  no_tenant["claims"].erase("tid");
  EXPECT_NE(principal_identity(no_tenant, {"tid"}), first) << "absent is not t-1";
}

TEST(PrincipalIdentity, WithoutASubjectTheWholeObjectIsTheIdentity) {
  const json p = {{"user", "alice"}, {"exp", 5}};
  EXPECT_EQ(principal_identity(p), p.dump());
  EXPECT_NE(principal_identity({{"user", "bob"}, {"exp", 5}}), principal_identity(p));
  EXPECT_EQ(principal_identity("alice"), "\"alice\"");
}

TEST(PrincipalIdentity, ClaimsARefreshChangesCannotBeIdentityClaims) {
  for (const char* name :
       {"iat", "exp", "nbf", "jti", "auth_time", "scope", "scp", "scopes", "claims"}) {
    const auto problem = identity_claim_problem(name);
    ASSERT_TRUE(problem.has_value()) << name;
    EXPECT_NE(problem->find(std::string("\"") + name + "\" cannot be an identity claim"),
              std::string::npos)
        << *problem;
  }
  EXPECT_TRUE(identity_claim_problem("").has_value());
  EXPECT_FALSE(identity_claim_problem("tid").has_value());
  EXPECT_FALSE(identity_claim_problem("org").has_value());
}

}  // namespace
}  // namespace mcpcxx
