// Constructor of missing_client_capability (the engine maps it to -32021).
#include "mcpcxx/errors.hpp"

namespace mcpcxx {

missing_client_capability::missing_client_capability(json required)
    : std::runtime_error("missing required client capability " + required.dump()),
      required_(std::move(required)) {}

}  // namespace mcpcxx
