// Task controls over the notification bus (tasks/task_control.hpp).
#include "tasks/task_control.hpp"

namespace mcpcxx::detail {

namespace {

// The connection: the subscription and the installed forwarder, undone in reverse.
class control_link {
 public:
  control_link(task_manager& tasks, notification_bus& bus) : tasks_(tasks), bus_(bus) {
    subscription_ = bus_.subscribe(change_kind::task_control, [t = &tasks_](const change_event& e) {
      t->apply_control(e.subject, e.payload);
    });
    tasks_.set_control_forwarder([b = &bus_](const std::string& task_id, const json& control) {
      b->publish({change_kind::task_control, task_id, control});
    });
  }
  ~control_link() {
    tasks_.set_control_forwarder({});
    bus_.unsubscribe(subscription_);
  }
  control_link(const control_link&) = delete;
  control_link& operator=(const control_link&) = delete;

 private:
  task_manager& tasks_;
  notification_bus& bus_;
  notification_bus::subscription subscription_ = 0;
};

}  // namespace

std::shared_ptr<void> connect_task_control(task_manager& tasks, notification_bus& bus) {
  return std::make_shared<control_link>(tasks, bus);
}

}  // namespace mcpcxx::detail
