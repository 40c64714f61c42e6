// The blocking form of an async tool.
#include "registry/async_tools.hpp"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>

namespace mcpcxx {

namespace detail {
namespace {

// Where the blocking form waits for the completion.
class waiter final : public tool_completion::target {
 public:
  void complete(tool_result r) override { settle(std::move(r), nullptr); }
  void fail(std::exception_ptr error) override { settle(std::nullopt, std::move(error)); }

  tool_result wait() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [this] { return done_; });
    if (error_) std::rethrow_exception(error_);
    return std::move(*result_);
  }

 private:
  void settle(std::optional<tool_result> r, std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    if (done_) return;
    result_ = std::move(r);
    error_ = std::move(error);
    done_ = true;
    cv_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::optional<tool_result> result_;
  std::exception_ptr error_;
};

}  // namespace
}  // namespace detail

// Shared by the copies of one completion: the first answer wins; the last copy dropped
// unanswered answers with a failure, so a call can never stay open for ever.
struct tool_completion::shared {
  explicit shared(std::shared_ptr<target> t) : to(std::move(t)) {}
  shared(const shared&) = delete;
  shared& operator=(const shared&) = delete;
  ~shared() {
    if (answered.exchange(true)) return;
    try {
      to->fail(std::make_exception_ptr(std::logic_error(
          "the async tool handler dropped its completion without answering the call")));
    } catch (...) {  // a destructor must not throw; the engine logged what it could
    }
  }
  std::shared_ptr<target> to;
  std::atomic<bool> answered{false};
};

tool_completion::tool_completion(std::shared_ptr<target> t)
    : shared_(std::make_shared<shared>(std::move(t))) {}

void tool_completion::complete(tool_result r) const {
  if (shared_->answered.exchange(true)) return;
  shared_->to->complete(std::move(r));
}

void tool_completion::fail(std::exception_ptr error) const {
  if (shared_->answered.exchange(true)) return;
  shared_->to->fail(std::move(error));
}

namespace detail {

tool_handler blocking_form(async_tool_handler async) {
  return [async = std::move(async)](const json& arguments, request_context& ctx) {
    auto w = std::make_shared<waiter>();
    async(arguments, ctx, tool_completion(w));
    return w->wait();
  };
}

}  // namespace detail
}  // namespace mcpcxx
