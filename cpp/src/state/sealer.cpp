// AES-256-GCM sealing of requestState through OpenSSL's EVP interface (state/libcrypto.hpp).
#include "state/sealer.hpp"

#include <memory>
#include <optional>
#include <stdexcept>

#include "state/codec.hpp"
#include "state/libcrypto.hpp"

namespace mcpcxx::state {

namespace {

constexpr unsigned char k_version = 0x01;
constexpr std::size_t k_header = 1 + 8;  // version, expiry
constexpr std::size_t k_nonce = 12;
constexpr std::size_t k_tag = 16;
constexpr std::string_view k_label = "mcpcxx requestState";

using ctx_ptr = std::unique_ptr<EVP_CIPHER_CTX, decltype(libcrypto_api::cipher_ctx_free)>;

ctx_ptr new_ctx() {
  ctx_ptr ctx(libcrypto().cipher_ctx_new(), libcrypto().cipher_ctx_free);
  if (!ctx) throw std::runtime_error("EVP_CIPHER_CTX_new failed");
  return ctx;
}

unsigned char* u8(std::string& s) { return reinterpret_cast<unsigned char*>(s.data()); }
const unsigned char* u8(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

std::string associated_data(std::string_view header) {
  std::string aad(k_label);
  aad.append(header);
  return aad;
}

std::string header_for(std::int64_t expiry) {
  std::string h(k_header, '\0');
  h[0] = static_cast<char>(k_version);
  for (int i = 0; i < 8; ++i) {
    h[static_cast<std::size_t>(8 - i)] =
        static_cast<char>((static_cast<std::uint64_t>(expiry) >> (8 * i)) & 0xff);
  }
  return h;
}

std::int64_t expiry_of(std::string_view header) {
  std::uint64_t v = 0;
  for (std::size_t i = 1; i < k_header; ++i) v = (v << 8) | static_cast<unsigned char>(header[i]);
  return static_cast<std::int64_t>(v);
}

// nonce | ciphertext | tag for `plain` under `key`, authenticating `aad`.
std::string encrypt(const key_bytes& key, std::string_view aad, std::string_view plain) {
  const libcrypto_api& c = libcrypto();
  std::string out(k_nonce + plain.size() + k_tag, '\0');
  if (c.rand_bytes(u8(out), static_cast<int>(k_nonce)) != 1) {
    throw std::runtime_error("RAND_bytes failed: cannot seal requestState");
  }
  auto ctx = new_ctx();
  int len = 0;
  unsigned char* body = u8(out) + k_nonce;
  const bool ok =
      c.encrypt_init(ctx.get(), c.aes_256_gcm(), nullptr, key.data(), u8(out)) == 1 &&
      c.encrypt_update(ctx.get(), nullptr, &len, u8(aad), static_cast<int>(aad.size())) == 1 &&
      c.encrypt_update(ctx.get(), body, &len, u8(plain), static_cast<int>(plain.size())) == 1 &&
      c.encrypt_final(ctx.get(), body + len, &len) == 1 &&
      c.cipher_ctx_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(k_tag),
                        body + plain.size()) == 1;
  if (!ok) throw std::runtime_error("AES-256-GCM encryption failed in libcrypto");
  return out;
}

// The plaintext of nonce | ciphertext | tag when it authenticates under `key`, else nullopt.
std::optional<std::string> decrypt(const key_bytes& key, std::string_view aad,
                                   std::string_view sealed) {
  const std::string_view nonce = sealed.substr(0, k_nonce);
  const std::string_view body = sealed.substr(k_nonce, sealed.size() - k_nonce - k_tag);
  std::string tag(sealed.substr(sealed.size() - k_tag));
  std::string plain(body.size(), '\0');
  const libcrypto_api& c = libcrypto();
  auto ctx = new_ctx();
  int len = 0;
  const bool ok =
      c.decrypt_init(ctx.get(), c.aes_256_gcm(), nullptr, key.data(), u8(nonce)) == 1 &&
      c.decrypt_update(ctx.get(), nullptr, &len, u8(aad), static_cast<int>(aad.size())) == 1 &&
      c.decrypt_update(ctx.get(), u8(plain), &len, u8(body), static_cast<int>(body.size())) == 1 &&
      c.cipher_ctx_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(k_tag), u8(tag)) == 1 &&
      c.decrypt_final(ctx.get(), u8(plain) + len, &len) == 1;
  if (!ok) return std::nullopt;
  return plain;
}

open_result refused(refusal why) {
  open_result r;
  r.why = why;
  return r;
}

std::int64_t unix_seconds(sealer::clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

// Compares the authenticated binding with the request's; the payload when they match.
open_result check_binding(const json& sealed, const binding& b) {
  const auto field = [&](const char* k) {
    const auto it = sealed.find(k);
    return it != sealed.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (field("m") != b.method) {
    open_result r = refused(refusal::other_method);
    r.sealed_method = field("m");
    return r;
  }
  if (field("d") != base64url_encode(b.params_digest)) return refused(refusal::other_params);
  if (field("p") != base64url_encode(b.principal_digest)) return refused(refusal::other_principal);
  open_result r;
  r.ok = true;
  r.payload = sealed.contains("s") ? sealed.at("s") : json(nullptr);
  return r;
}

}  // namespace

binding bind_request(std::string_view method, const json& params, std::string_view identity) {
  binding b;
  b.method = std::string(method);
  // Streamed, not copied and dumped: every modern tools/call, prompts/get and resources/read
  // computes its binding, so this is on the hot path.
  b.params_digest = params.is_object()
                        ? json_sha256(params, {"inputResponses", "requestState", "_meta"})
                        : json_sha256(json::object());
  if (!identity.empty()) b.principal_digest = sha256(identity);
  return b;
}

std::string_view to_string(refusal r) noexcept {
  switch (r) {
    case refusal::malformed:
      return "malformed";
    case refusal::not_authentic:
      return "not_authentic";
    case refusal::expired:
      return "expired";
    case refusal::other_method:
      return "other_method";
    case refusal::other_params:
      return "other_params";
    case refusal::other_principal:
      return "other_principal";
  }
  return "unknown";
}

sealer::sealer(key_ring keys, std::chrono::seconds ttl) : keys_(std::move(keys)), ttl_(ttl) {
  if (ttl_.count() <= 0) {
    throw std::invalid_argument(
        "request_state_ttl_s must be positive (seconds a requestState lives)");
  }
}

std::string sealer::seal(const binding& b, const json& payload, clock::time_point now) const {
  const json plain = {{"m", b.method},
                      {"d", base64url_encode(b.params_digest)},
                      {"p", base64url_encode(b.principal_digest)},
                      {"s", payload}};
  std::string token = header_for(unix_seconds(now) + ttl_.count());
  token += encrypt(keys_.current(), associated_data(token),
                   plain.dump(-1, ' ', false, json::error_handler_t::replace));
  return base64url_encode(token);
}

open_result sealer::open(std::string_view text, const binding& b, clock::time_point now) const {
  if (text.size() > k_max_text) return refused(refusal::malformed);
  const auto raw = base64_decode_any(text);
  if (!raw || raw->size() < k_header + k_nonce + k_tag ||
      static_cast<unsigned char>((*raw)[0]) != k_version) {
    return refused(refusal::malformed);
  }
  const std::string_view all(*raw);
  const std::string aad = associated_data(all.substr(0, k_header));
  std::optional<std::string> plain;
  for (const key_bytes& key : keys_.all()) {
    plain = decrypt(key, aad, all.substr(k_header));
    if (plain) break;
  }
  if (!plain) return refused(refusal::not_authentic);
  const std::int64_t late = unix_seconds(now) - expiry_of(all);
  if (late >= 0) {
    open_result r = refused(refusal::expired);
    r.expired_for_s = late;
    return r;
  }
  const json sealed = json::parse(*plain, nullptr, false);
  // Authentic but unreadable can only be a bug of the sealing side; refuse it like forgery.
  if (!sealed.is_object()) return refused(refusal::not_authentic);
  return check_binding(sealed, b);
}

}  // namespace mcpcxx::state
