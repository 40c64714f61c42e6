// Cross-replica task control: tasks/cancel and tasks/update (input responses) that reach a replica
// not running the task travel over the notification bus (change_kind::task_control, subject the
// task id, payload the control of task_manager::control_forwarder) to the replica that runs it.
// With the in-memory bus nothing is connected (every unfinished task runs in this process); the
// engine connects it when a shared store carries the bus between replicas.
// Thread-safety: connect and disconnect (the handle's destruction) from any thread; controls are
// applied on the bus's delivering thread.
#pragma once

#include <memory>

#include "core/notification_bus.hpp"
#include "tasks/tasks.hpp"

namespace mcpcxx::detail {

/// Installs on `tasks` a forwarder that publishes controls on `bus`, and subscribes `tasks` to
/// the controls other replicas publish. Destroying the handle undoes both; `tasks` and `bus` must
/// outlive it.
std::shared_ptr<void> connect_task_control(task_manager& tasks, notification_bus& bus);

}  // namespace mcpcxx::detail
