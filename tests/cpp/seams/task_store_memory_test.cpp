// The in-memory task store: the contract suite (task_store_contract.hpp), then what only the
// memory store promises: pages are full until the last, which carries no cursor.
#include "mcpcxx/tasks.hpp"

#include "seams/task_store_contract.hpp"

namespace mcpcxx::testing::contract {

INSTANTIATE_TEST_SUITE_P(Memory, TaskStoreContract,
                         ::testing::Values(task_store_factory{"memory",
                                                              [](std::size_t max_tasks) {
                                                                return make_in_memory_task_store(
                                                                    in_memory_task_store_options{
                                                                        max_tasks});
                                                              }}),
                         task_store_factory_name{});

TEST(MemoryTaskStoreSpecifics, PagesAreFullUntilTheLastWhichHasNoCursor) {
  auto store = make_in_memory_task_store();
  const auto base = now_ms();
  for (int i = 0; i < 7; ++i) {
    ASSERT_TRUE(store->create(
        make_task("t" + std::to_string(i), "alice", base + std::chrono::milliseconds(i))));
  }
  std::vector<std::size_t> sizes;
  std::optional<std::string> cursor;
  do {
    const auto page = store->list("alice", cursor, 3);
    ASSERT_TRUE(page.has_value());
    sizes.push_back(page->tasks.size());
    cursor = page->next_cursor;
  } while (cursor && sizes.size() < 10);
  EXPECT_EQ(sizes, (std::vector<std::size_t>{3, 3, 1}));

  const auto exact = store->list("alice", std::nullopt, 7);
  ASSERT_TRUE(exact.has_value());
  EXPECT_EQ(exact->tasks.size(), 7u);
  EXPECT_FALSE(exact->next_cursor.has_value()) << "a page that holds the rest has no cursor";
}

}  // namespace mcpcxx::testing::contract
