// base64 through EVP_EncodeBlock/EVP_DecodeBlock, SHA-256 through EVP_Digest.
#include "state/codec.hpp"

#include <openssl/evp.h>
#include <stdexcept>

namespace mcpcxx::state {

namespace {

const unsigned char* bytes_of(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

}  // namespace

std::string base64url_encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), bytes_of(bytes),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return out;
}

std::optional<std::string> base64_decode_any(std::string_view text) {
  std::string std_form(text);
  for (char& c : std_form) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (std_form.size() % 4 != 0) std_form.push_back('=');
  if (std_form.size() > (std::size_t{1} << 30)) return std::nullopt;
  std::size_t pad = 0;
  for (auto it = std_form.rbegin(); it != std_form.rend() && *it == '='; ++it) ++pad;
  if (pad > 2) return std::nullopt;
  // EVP_DecodeBlock skips surrounding whitespace; the wire form never has any.
  for (const char c : std_form) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') return std::nullopt;
  }
  std::string out(3 * std_form.size() / 4, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()), bytes_of(std_form),
                                static_cast<int>(std_form.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding as zero bytes; drop them.
  out.resize(static_cast<std::size_t>(n) - pad);
  return out;
}

std::string sha256(std::string_view bytes) {
  std::string out(32, '\0');
  unsigned int len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), reinterpret_cast<unsigned char*>(out.data()), &len,
                 EVP_sha256(), nullptr) != 1 ||
      len != 32) {
    throw std::runtime_error("SHA-256 failed in libcrypto");
  }
  return out;
}

}  // namespace mcpcxx::state
