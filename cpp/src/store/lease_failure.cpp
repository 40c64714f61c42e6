// The failed record of a task whose replica stopped (store/lease_failure.hpp).
#include "store/lease_failure.hpp"

#include "mcpcxx/error_codes.hpp"

namespace mcpcxx::detail {

// PENDING: row P53 of the situation table (added once the table's other pending rows landed).
json lease_lost_error(const std::string& task_id, const std::string& replica) {
  const std::string message =
      "Task " + json(task_id).dump() + " failed: the server replica running it (" + replica +
      ") stopped before the task finished (it crashed, was killed or lost its store), so its "
      "outcome is unknown: the work may or may not have been applied, wholly or in part. Check "
      "the current state of what the tool changes before calling it again, so nothing is "
      "applied twice";
  return {{"code", error_code::internal_error},
          {"message", message},
          {"data", {{"taskId", task_id}, {"effect", "unknown"}}}};
}

task_record lease_lost_record(const task_record& r, const std::string& replica) {
  json error = lease_lost_error(r.task_id, replica);
  task_record failed = r;
  failed.status = task_status::failed;
  failed.status_message = error.at("message").get<std::string>();
  failed.error = std::move(error);
  failed.result = nullptr;
  failed.input_requests = json::object();
  failed.last_updated_at = task_record::clock::now();
  return failed;
}

}  // namespace mcpcxx::detail
