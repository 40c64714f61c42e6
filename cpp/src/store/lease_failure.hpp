// What a task becomes when the replica running it stopped renewing its lease: failed, with the
// error of row P53 (the outcome of the work is unknown) as its error and status message.
// Thread-safety: a pure function.
#pragma once

#include <string>

#include "mcpcxx/tasks.hpp"

namespace mcpcxx::detail {

/// `r` failed because replica `replica` stopped renewing its lease (now).
task_record lease_lost_record(const task_record& r, const std::string& replica);

}  // namespace mcpcxx::detail
