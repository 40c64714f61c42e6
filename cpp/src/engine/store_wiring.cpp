// engine::attach_store: moves what replicas share onto the Redis store (docs/scale-out.md).
// The bus keeps delivering in this process and a bridge carries its events to the other
// replicas (list changes, resource updates, task status, task controls); tasks live in the
// Redis task store, with leases for the ones this replica runs.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "engine/engine.hpp"
#include "store/redis_stores.hpp"
#include "store/store_call.hpp"
#include "tasks/task_calls.hpp"
#include "tasks/task_control.hpp"

namespace mcpcxx::detail {

namespace {

// The task store as the engine sees it: Redis trouble becomes store_unavailable, which the
// classifier answers with row P57 (nothing was done, retry later), instead of an unexpected
// failure with a reference id.
class store_task_store final : public task_store {
 public:
  explicit store_task_store(std::shared_ptr<leased_task_store> inner) : inner_(std::move(inner)) {}

  bool create(const task_record& r) override {
    return store_call([&] { return inner_->create(r); });
  }
  std::optional<task_record> get(std::string_view id, std::string_view owner) override {
    return store_call([&] { return inner_->get(id, owner); });
  }
  std::optional<task_record> update(std::string_view id,
                                    const std::function<void(task_record&)>& change) override {
    return store_call([&] { return inner_->update(id, change); });
  }
  std::optional<task_page> list(std::string_view owner, const std::optional<std::string>& cursor,
                                std::size_t limit) override {
    return store_call([&] { return inner_->list(owner, cursor, limit); });
  }

 private:
  std::shared_ptr<leased_task_store> inner_;
};

// The at-most-once records as the engine sees them: Redis trouble becomes store_unavailable (a
// claim refused with row P57; a settle that failed is logged and its claim turns unknown).
class store_call_records final : public call_records {
 public:
  explicit store_call_records(std::shared_ptr<call_records> inner) : inner_(std::move(inner)) {}

  claim_outcome claim(const call_claim& c) override {
    return store_call([&] { return inner_->claim(c); });
  }
  void settle(const std::string& key, const std::string& call, const call_record& r) override {
    store_call([&] { inner_->settle(key, call, r); });
  }
  void set_task(const std::string& key, const std::string& call, const std::string& task) override {
    store_call([&] { inner_->set_task(key, call, task); });
  }
  void release(const std::string& key, const std::string& call) override {
    store_call([&] { inner_->release(key, call); });
  }

 private:
  std::shared_ptr<call_records> inner_;
};

// The rate limit's buckets as the engine sees them: Redis trouble becomes store_unavailable (the
// request is refused with row P57; nothing ran).
class store_token_buckets final : public token_buckets {
 public:
  explicit store_token_buckets(std::shared_ptr<token_buckets> inner) : inner_(std::move(inner)) {}
  std::chrono::milliseconds take(const std::string& key, const bucket_rule& rule) override {
    return store_call([&] { return inner_->take(key, rule); });
  }

 private:
  std::shared_ptr<token_buckets> inner_;
};

// The response cache's entries as the engine sees them: Redis trouble becomes store_unavailable,
// which the cache answers by running the request uncached.
class store_response_cache final : public response_cache_store {
 public:
  explicit store_response_cache(std::shared_ptr<response_cache_store> inner)
      : inner_(std::move(inner)) {}
  std::optional<cached_response> get(const std::string& key) override {
    return store_call([&] { return inner_->get(key); });
  }
  void put(const std::string& key, std::string body, std::chrono::milliseconds ttl,
           const std::vector<std::string>& tags) override {
    store_call([&] { inner_->put(key, std::move(body), ttl, tags); });
  }
  void drop(const std::string& tag) override {
    store_call([&] { inner_->drop(tag); });
  }

 private:
  std::shared_ptr<response_cache_store> inner_;
};

// PINGs the store every `period` so that client::healthy() (mcpcxx_store_up, store_ready())
// follows Redis on an idle replica too: within period + the command timeout, both ways.
class health_probe {
 public:
  health_probe(std::shared_ptr<redis::client> client, std::chrono::milliseconds period)
      : client_(std::move(client)), period_(period), thread_([this] { run(); }) {}
  health_probe(const health_probe&) = delete;
  health_probe& operator=(const health_probe&) = delete;
  ~health_probe() {
    {
      std::lock_guard g(lock_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

 private:
  void run() {
    std::unique_lock g(lock_);
    while (!wake_.wait_for(g, period_, [this] { return stopping_; })) {
      g.unlock();
      try {
        client_->run({"PING"});
      } catch (const redis::unavailable&) {  // NOLINT(bugprone-empty-catch): healthy() says so
      }
      g.lock();
    }
  }

  const std::shared_ptr<redis::client> client_;
  const std::chrono::milliseconds period_;
  std::mutex lock_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;  // last: started once the members it reads exist
};

// How often an idle replica checks that the store answers.
constexpr std::chrono::milliseconds k_health_period{2000};

// What attach_store() started; destroyed by engine::stop() in this order: the leases are
// released (this replica's unfinished tasks read as failed elsewhere), then the bridge and the
// control link stop carrying events.
struct store_links {
  std::shared_ptr<leased_task_store> tasks;
  std::shared_ptr<void> control;
  std::unique_ptr<bus_bridge> bridge;
  std::unique_ptr<health_probe> probe;

  ~store_links() {
    probe.reset();
    try {
      if (tasks) tasks->release();
    } catch (const redis::unavailable&) {  // NOLINT(bugprone-empty-catch): leases expire alone
    }
    control.reset();
    bridge.reset();
  }
};

}  // namespace

void engine::attach_store(std::shared_ptr<shared_store> store) {
  if (store_) throw std::logic_error("mcpcxx: a shared store is attached to this server already");
  server_core& core = *core_;
  const redis_scope scope{store->client, store->connection, store->key_prefix, store->replica_id};
  auto trouble = [&core](std::string_view what) {
    core.log().write("warning", "store_trouble", {{"what", std::string(what)}});
  };
  auto links = std::make_shared<store_links>();
  redis_task_store_options t;
  t.lease = store->options.task_lease;
  t.max_tasks = store->options.max_tasks;
  t.on_lost = [bus = &core.bus()](const task_record& r) { publish_task_status(*bus, r); };
  t.on_trouble = trouble;
  t.on_settled_elsewhere = [tasks = tasks_](const std::string& id) {
    tasks->apply_control(id, {{"op", "cancel"}});
  };
  links->tasks = make_redis_task_store(scope, t);
  redis_call_records_options once;
  once.lease = core.options().at_most_once.lease;
  once.on_trouble = trouble;
  once_->use_records(std::make_shared<store_call_records>(make_redis_call_records(scope, once)));
  core.use_buckets(std::make_shared<store_token_buckets>(make_redis_token_buckets(scope, trouble)));
  core.caches().use_shared(
      std::make_shared<store_response_cache>(make_redis_response_cache(scope, trouble)));
  tasks_->use_store(std::make_shared<store_task_store>(links->tasks));
  links->control = connect_task_control(*tasks_, core.bus());
  bus_bridge_options b;
  b.on_trouble = trouble;
  links->bridge = make_redis_bus_bridge(core.bus(), scope, b);
  links->probe = std::make_unique<health_probe>(store->client, k_health_period);
  store_links_ = std::move(links);
  store_ = std::move(store);
  core.log().write("info", "store_attached",
                   {{"store", store_->connection.url.redacted()},
                    {"keyPrefix", store_->key_prefix},
                    {"replica", store_->replica_id}});
}

}  // namespace mcpcxx::detail
