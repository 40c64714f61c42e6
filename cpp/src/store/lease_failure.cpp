// The failed record of a task whose replica stopped (store/lease_failure.hpp).
#include "store/lease_failure.hpp"

#include "wire/situation.hpp"

namespace mcpcxx::detail {

task_record lease_lost_record(const task_record& r, const std::string& replica) {
  const json args = {{"taskId", r.task_id}, {"replica", replica}, {"effect", "unknown"}};
  json error = wire::error_json(wire::render(wire::situation::P53_task_replica_lost, args));
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
