// base64 through EVP_EncodeBlock/EVP_DecodeBlock, SHA-256 through EVP_Digest and EVP_DigestUpdate;
// hex by a digit table.
#include "state/codec.hpp"

#include <algorithm>
#include <stdexcept>

#include "state/libcrypto.hpp"

namespace mcpcxx::state {

namespace {

const unsigned char* bytes_of(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

}  // namespace

std::string base64url_encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = libcrypto().encode_block(reinterpret_cast<unsigned char*>(out.data()),
                                         bytes_of(bytes), static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return out;
}

namespace {

// `text` in the standard alphabet ("+/"), padded with '=' to a multiple of 4.
std::string standard_padded_base64(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (out.size() % 4 != 0) out.push_back('=');
  return out;
}

std::size_t trailing_padding(std::string_view s) {
  const std::size_t last = s.find_last_not_of('=');
  return last == std::string_view::npos ? s.size() : s.size() - 1 - last;
}

}  // namespace

std::optional<std::string> base64_decode_any(std::string_view text) {
  const std::string std_form = standard_padded_base64(text);
  if (std_form.size() > (std::size_t{1} << 30)) return std::nullopt;
  const std::size_t pad = trailing_padding(std_form);
  if (pad > 2) return std::nullopt;
  // EVP_DecodeBlock skips surrounding whitespace; the wire form never has any.
  if (std_form.find_first_of(" \t\r\n") != std::string::npos) return std::nullopt;
  std::string out(3 * std_form.size() / 4, '\0');
  const int n = libcrypto().decode_block(reinterpret_cast<unsigned char*>(out.data()),
                                         bytes_of(std_form), static_cast<int>(std_form.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding as zero bytes; drop them.
  out.resize(static_cast<std::size_t>(n) - pad);
  return out;
}

std::string hex_encode(std::string_view bytes, hex_case letters) {
  static constexpr std::string_view k_lower = "0123456789abcdef";
  static constexpr std::string_view k_upper = "0123456789ABCDEF";
  const std::string_view digits = letters == hex_case::upper ? k_upper : k_lower;
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    out += digits[c >> 4];
    out += digits[c & 0xF];
  }
  return out;
}

std::string sha256(std::string_view bytes) {
  std::string out(32, '\0');
  unsigned int len = 0;
  if (libcrypto().digest(bytes.data(), bytes.size(), reinterpret_cast<unsigned char*>(out.data()),
                         &len, libcrypto().sha256(), nullptr) != 1 ||
      len != 32) {
    throw std::runtime_error("SHA-256 failed in libcrypto");
  }
  return out;
}

// ---- incremental SHA-256 ----

namespace {

// Fetched once: OpenSSL 3 looks EVP_sha256() up in its provider registry on every init.
const EVP_MD* sha256_md() {
  static EVP_MD* const md = libcrypto().md_fetch(nullptr, "SHA256", nullptr);
  if (md == nullptr) throw std::runtime_error("SHA-256 is not available in libcrypto");
  return md;
}

// One reusable context per thread (a context allocates on creation and on its first init).
struct thread_context {
  EVP_MD_CTX* md = libcrypto().md_ctx_new();
  bool busy = false;
  thread_context() = default;
  thread_context(const thread_context&) = delete;
  thread_context& operator=(const thread_context&) = delete;
  ~thread_context() { libcrypto().md_ctx_free(md); }
};

thread_local thread_context t_context;

}  // namespace

sha256_stream::sha256_stream() {
  if (!t_context.busy && t_context.md != nullptr) {
    md_ = t_context.md;
    borrowed_ = true;
    t_context.busy = true;
  } else {
    md_ = libcrypto().md_ctx_new();
  }
  if (md_ == nullptr || libcrypto().digest_init(md_, sha256_md(), nullptr) != 1) {
    release();
    throw std::runtime_error("SHA-256 init failed in libcrypto");
  }
}

sha256_stream::~sha256_stream() { release(); }

void sha256_stream::release() noexcept {
  if (borrowed_) {
    t_context.busy = false;
    borrowed_ = false;
  } else {
    libcrypto().md_ctx_free(md_);
  }
  md_ = nullptr;
}

void sha256_stream::flush() {
  if (used_ != 0 && libcrypto().digest_update(md_, buffer_.data(), used_) != 1) {
    throw std::runtime_error("SHA-256 update failed in libcrypto");
  }
  used_ = 0;
}

void sha256_stream::update(std::string_view bytes) {
  if (bytes.size() > buffer_.size()) {
    flush();
    if (libcrypto().digest_update(md_, bytes.data(), bytes.size()) != 1) {
      throw std::runtime_error("SHA-256 update failed in libcrypto");
    }
    return;
  }
  if (used_ + bytes.size() > buffer_.size()) flush();
  std::copy(bytes.begin(), bytes.end(), buffer_.begin() + static_cast<std::ptrdiff_t>(used_));
  used_ += bytes.size();
}

std::string sha256_stream::finish() {
  flush();
  std::string out(32, '\0');
  unsigned int len = 0;
  if (libcrypto().digest_final(md_, reinterpret_cast<unsigned char*>(out.data()), &len) != 1 ||
      len != 32) {
    throw std::runtime_error("SHA-256 failed in libcrypto");
  }
  return out;
}

namespace {

// nlohmann's own serializer writing into the digest: the bytes are exactly those of dump().
// (detail:: API of nlohmann_json 3.11, the version Debian 12 ships and CMake requires.)
class digest_adapter : public nlohmann::detail::output_adapter_protocol<char> {
 public:
  explicit digest_adapter(sha256_stream& s) : s_(s) {}
  void write_character(char c) override { s_.update(std::string_view(&c, 1)); }
  void write_characters(const char* s, std::size_t length) override {
    s_.update(std::string_view(s, length));
  }

 private:
  sha256_stream& s_;
};

// A key of plain printable ASCII (the usual case) is its own JSON string body.
bool plain_key(std::string_view key) {
  return std::all_of(key.begin(), key.end(),
                     [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
}

}  // namespace

std::string json_sha256(const json& value, std::initializer_list<std::string_view> skip) {
  sha256_stream digest;
  nlohmann::detail::serializer<json> out(std::make_shared<digest_adapter>(digest), ' ',
                                         json::error_handler_t::replace);
  if (!value.is_object() || skip.size() == 0) {
    out.dump(value, false, false, 0);
    return digest.finish();
  }
  digest.update("{");
  bool first = true;
  for (const auto& [key, member] : value.items()) {
    if (std::find(skip.begin(), skip.end(), key) != skip.end()) continue;
    if (!first) digest.update(",");
    first = false;
    if (plain_key(key)) {
      digest.update("\"");
      digest.update(key);
      digest.update("\":");
    } else {
      out.dump(json(key), false, false, 0);
      digest.update(":");
    }
    out.dump(member, false, false, 0);
  }
  digest.update("}");
  return digest.finish();
}

}  // namespace mcpcxx::state
