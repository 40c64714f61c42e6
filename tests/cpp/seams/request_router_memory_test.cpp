// The single-process request router: the contract suite (request_router_contract.hpp), then
// what only the memory router promises: the inbox runs on the routing thread before route()
// returns.
#include <thread>

#include "core/request_router.hpp"
#include "seams/request_router_contract.hpp"

namespace mcpcxx::testing::contract {

INSTANTIATE_TEST_SUITE_P(Memory, RequestRouterContract,
                         ::testing::Values(router_factory{
                             "memory", [] { return detail::make_memory_request_router(); }, {}}),
                         router_factory_name{});

TEST(MemoryRequestRouterSync, RouteDeliversOnTheRoutingThreadBeforeReturning) {
  auto router = detail::make_memory_request_router();
  auto inbox = make_message_recorder();
  const auto routing_thread = std::this_thread::get_id();
  int other_thread_calls = 0;
  router->attach("s", [&, in = inbox->inbox()](std::string m) {
    if (std::this_thread::get_id() != routing_thread) ++other_thread_calls;
    in(std::move(m));
  });
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(router->route("s", "m" + std::to_string(i)));
    EXPECT_EQ(inbox->count(), static_cast<std::size_t>(i + 1)) << "delivered before route returned";
  }
  EXPECT_EQ(other_thread_calls, 0);
}

TEST(MemoryRequestRouterSync, ReplacedInboxIsDestroyedWhenAttachReturns) {
  auto router = detail::make_memory_request_router();
  auto token = std::make_shared<int>(1);
  std::weak_ptr<int> captured = token;
  router->attach("s", [token](const std::string&) {});
  token.reset();
  router->attach("s", [](const std::string&) {});
  EXPECT_TRUE(captured.expired());
}

}  // namespace mcpcxx::testing::contract
