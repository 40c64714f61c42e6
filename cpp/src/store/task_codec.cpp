// The stored form of task records (store/task_codec.hpp).
#include "store/task_codec.hpp"

#include <chrono>
#include <stdexcept>

namespace mcpcxx::detail {

namespace {

using clock = task_record::clock;

std::int64_t to_ns(clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

clock::time_point from_ns(std::int64_t ns) {
  return clock::time_point(
      std::chrono::duration_cast<clock::duration>(std::chrono::nanoseconds(ns)));
}

}  // namespace

task_status parse_status(std::string_view name) {
  for (const task_status s :
       {task_status::working, task_status::input_required, task_status::completed,
        task_status::failed, task_status::cancelled}) {
    if (to_string(s) == name) return s;
  }
  throw std::invalid_argument("unknown task status");
}

std::string encode_record(const task_record& r) {
  json j = {{"id", r.task_id},
            {"owner", r.owner},
            {"method", r.method},
            {"status", std::string(to_string(r.status))},
            {"created", to_ns(r.created_at)},
            {"updated", to_ns(r.last_updated_at)},
            {"ttl", r.ttl_ms},
            {"poll", r.poll_interval_ms},
            {"result", r.result},
            {"failure", r.error},
            {"input", r.input_requests}};
  if (r.status_message) j["message"] = *r.status_message;
  // Records hold what arrived as JSON, so replacement never happens in practice; it beats
  // failing a task's settlement over one bad byte.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

task_record decode_record(std::string_view text) {
  const json j = json::parse(text);
  task_record r;
  r.task_id = j.at("id").get<std::string>();
  r.owner = j.at("owner").get<std::string>();
  r.method = j.at("method").get<std::string>();
  r.status = parse_status(j.at("status").get<std::string>());
  if (const auto m = j.find("message"); m != j.end()) r.status_message = m->get<std::string>();
  r.created_at = from_ns(j.at("created").get<std::int64_t>());
  r.last_updated_at = from_ns(j.at("updated").get<std::int64_t>());
  r.ttl_ms = j.at("ttl").get<std::int64_t>();
  r.poll_interval_ms = j.at("poll").get<std::int64_t>();
  r.result = j.at("result");
  r.error = j.at("failure");
  r.input_requests = j.at("input");
  return r;
}

std::int64_t expiry_ms(const task_record& r) {
  const auto at = r.created_at + std::chrono::milliseconds(r.ttl_ms);
  return std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count();
}

std::int64_t now_epoch_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock::now().time_since_epoch())
      .count();
}

}  // namespace mcpcxx::detail
