// The arguments digest (see digest.hpp).
#include "middleware/digest.hpp"

#include "methods/once_key.hpp"
#include "state/codec.hpp"

namespace mcpcxx::detail {

namespace {

std::string hex(std::string_view raw) {
  static constexpr char k_digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(raw.size() * 2);
  for (const unsigned char c : raw) {
    out += k_digits[c >> 4];
    out += k_digits[c & 15];
  }
  return out;
}

}  // namespace

std::string arguments_digest(const json& args) {
  return "sha256:" + hex(state::sha256(canonical_json(args.is_null() ? json::object() : args)));
}

}  // namespace mcpcxx::detail
