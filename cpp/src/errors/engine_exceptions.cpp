// Constructors of the exceptions the engine itself interprets (unexpected_error,
// missing_client_capability).
#include "mcpcxx/errors.hpp"

namespace mcpcxx {

unexpected_error::unexpected_error(std::string summary, std::string detail)
    : std::runtime_error(summary), summary_(std::move(summary)), detail_(std::move(detail)) {}

missing_client_capability::missing_client_capability(json required)
    : std::runtime_error("missing required client capability " + required.dump()),
      required_(std::move(required)) {}

}  // namespace mcpcxx
