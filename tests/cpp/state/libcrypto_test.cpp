// The libcrypto table (state/libcrypto.hpp): a lazy build names what is missing and how to fix it
// when the library cannot be loaded or lacks a function; either build seals through the table.
#include "state/libcrypto.hpp"

#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "state/codec.hpp"

namespace mcpcxx::state {
namespace {

std::string load_error(const std::string& soname) {
  try {
    (void)load_libcrypto(soname);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(Libcrypto, AMissingLibraryIsAClearError) {
  if (!libcrypto_is_lazy()) GTEST_SKIP() << "this build links libcrypto";
  const std::string what = load_error("libmcpcxx-no-such-crypto.so.9");
  EXPECT_NE(what.find("cannot load libmcpcxx-no-such-crypto.so.9"), std::string::npos) << what;
  EXPECT_NE(what.find("requestState needs OpenSSL 3's libcrypto"), std::string::npos) << what;
  EXPECT_NE(what.find("-DMCPCXX_LAZY_LIBCRYPTO=OFF"), std::string::npos) << what;
}

TEST(Libcrypto, ALibraryWithoutTheFunctionsIsRefusedByName) {
  if (!libcrypto_is_lazy()) GTEST_SKIP() << "this build links libcrypto";
  const std::string what = load_error("libm.so.6");
  EXPECT_NE(what.find("libm.so.6 lacks EVP_EncodeBlock"), std::string::npos) << what;
}

TEST(Libcrypto, TheTableComputesThroughEitherBuild) {
  // RFC 4648 and FIPS 180-2 vectors: base64url of "foobar", SHA-256 of "abc".
  EXPECT_EQ(base64url_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64url_encode(sha256("abc")), "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
}

}  // namespace
}  // namespace mcpcxx::state
