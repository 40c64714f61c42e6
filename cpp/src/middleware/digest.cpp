// The arguments digest (see digest.hpp).
#include "middleware/digest.hpp"

#include "methods/once_key.hpp"
#include "state/codec.hpp"

namespace mcpcxx::detail {

std::string arguments_digest(const json& args) {
  return "sha256:" +
         state::hex_encode(state::sha256(canonical_json(args.is_null() ? json::object() : args)));
}

}  // namespace mcpcxx::detail
