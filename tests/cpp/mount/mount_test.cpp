// server::mount (engine/mount.hpp) in one process: a child's tools, resources, templates and
// prompts served by the parent under a prefix in both eras, with the child's handlers, context,
// middleware and scopes; list changes and resource updates propagated; collisions, cycles and bad
// prefixes refused with errors that say what to do. The wire text: tests/golden/mount_*.txtar.
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;

server_options named(const std::string& name) {
  server_options o;
  o.info.name = name;
  o.log_writer = [](std::string_view) {};
  return o;
}

// The billing server: charge (echoes its arguments and logs), an invoice resource, an invoice
// template, a greeting prompt.
void add_billing(server& s, const std::shared_ptr<std::atomic<int>>& runs) {
  s.add_tool({.name = "charge",
              .input_schema = {{"type", "object"},
                               {"properties", {{"cents", {{"type", "integer"}}}}},
                               {"required", {"cents"}}}},
             [runs](const json& a, request_context& ctx) {
               ++*runs;
               ctx.log(log_level::info, {{"charging", a["cents"]}});
               return tool_result::text("charged " + a["cents"].dump());
             });
  s.add_resource({.uri = "mem://invoice", .name = "invoice"},
                 [](const std::string& uri, request_context&) {
                   return std::vector<resource_contents>{{.uri = uri, .text = "invoice 1"}};
                 });
  s.add_resource_template(
      {.uri_template = "mem://invoices/{id}", .name = "invoice by id"},
      [](const std::string& uri, const std::map<std::string, std::string>& vars, request_context&) {
        return std::vector<resource_contents>{{.uri = uri, .text = "invoice " + vars.at("id")}};
      });
  s.add_prompt(
      {.name = "greet", .arguments = {{.name = "who", .required = true}}},
      [](const std::map<std::string, std::string>& a, request_context&) {
        prompt_result r;
        r.messages = json::array(
            {{{"role", "user"}, {"content", {{"type", "text"}, {"text", "hi " + a.at("who")}}}}});
        return r;
      });
}

struct mounted {
  server shop{named("shop")};
  server billing{named("billing-server")};
  std::shared_ptr<std::atomic<int>> runs = std::make_shared<std::atomic<int>>(0);
  mounted() {
    add_billing(billing, runs);
    shop.add_tool({.name = "browse"},
                  [](const json&, request_context&) { return tool_result::text("browsing"); });
    shop.mount(billing, "billing");
  }
};

// The reply to request `id` (notifications such as list_changed may arrive after it).
json reply(harness& h, int id, const std::string& frame) {
  h.s.receive(frame);
  for (int i = 0; i < 500; ++i) {
    for (const auto& f : h.sink->frames()) {
      if (f.frame.contains("id") && f.frame["id"] == id) return f.frame;
    }
    std::this_thread::sleep_for(10ms);
  }
  return json();
}

json call(harness& h, int id, const std::string& tool, json args, bool modern = true) {
  json p = {{"name", tool}, {"arguments", std::move(args)}};
  return reply(h, id, modern ? modern_request(id, "tools/call", p) : request(id, "tools/call", p));
}

std::vector<std::string> names(const json& reply, const char* list, const char* key) {
  std::vector<std::string> out;
  for (const auto& e : reply["result"][list]) out.push_back(e[key]);
  return out;
}

std::string thrown(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(mount, serves_every_primitive_under_the_prefix_in_the_modern_era) {
  mounted m;
  harness h(m.shop);
  EXPECT_EQ(names(h.roundtrip(modern_request(1, "tools/list")), "tools", "name"),
            (std::vector<std::string>{"browse", "billing_charge"}));
  const json r = call(h, 2, "billing_charge", {{"cents", 250}});
  EXPECT_EQ(r["result"]["content"][0]["text"], "charged 250");
  EXPECT_EQ(*m.runs, 1);
  const json res =
      h.roundtrip(modern_request(3, "resources/read", {{"uri", "mem://billing/invoice"}}));
  EXPECT_EQ(res["result"]["contents"][0]["uri"], "mem://billing/invoice");
  EXPECT_EQ(res["result"]["contents"][0]["text"], "invoice 1");
  const json t =
      h.roundtrip(modern_request(4, "resources/read", {{"uri", "mem://billing/invoices/7"}}));
  EXPECT_EQ(t["result"]["contents"][0]["uri"], "mem://billing/invoices/7");
  EXPECT_EQ(t["result"]["contents"][0]["text"], "invoice 7");
  EXPECT_EQ(names(h.roundtrip(modern_request(5, "resources/templates/list")), "resourceTemplates",
                  "uriTemplate"),
            (std::vector<std::string>{"mem://billing/invoices/{id}"}));
  const json p = h.roundtrip(modern_request(
      6, "prompts/get", {{"name", "billing_greet"}, {"arguments", {{"who", "ann"}}}}));
  EXPECT_EQ(p["result"]["messages"][0]["content"]["text"], "hi ann");
}

TEST(mount, the_legacy_era_serves_them_too_and_the_child_still_serves_alone) {
  mounted m;
  harness h(m.shop);
  h.initialize();
  EXPECT_EQ(call(h, 1, "billing_charge", {{"cents", 5}}, false)["result"]["content"][0]["text"],
            "charged 5");
  harness alone(m.billing);
  EXPECT_EQ(call(alone, 1, "charge", {{"cents", 6}})["result"]["content"][0]["text"], "charged 6");
  EXPECT_EQ(call(alone, 2, "billing_charge", {{"cents", 6}})["error"]["code"],
            error_code::invalid_params);  // the prefix is the parent's, not the child's
}

TEST(mount, bad_arguments_get_the_invalid_arguments_row_naming_the_served_tool) {
  mounted m;
  harness h(m.shop);
  const json r = call(h, 1, "billing_charge", {{"cents", "many"}});
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_EQ(r["result"]["_meta"]["mcpcxx/error"]["category"], "invalid_arguments");
  EXPECT_TRUE(has(r["result"]["content"][0]["text"], "billing_charge"));
  EXPECT_EQ(*m.runs, 0);
}

TEST(mount, the_child_handler_logs_to_the_callers_session) {
  mounted m;
  harness h(m.shop);
  h.initialize();
  h.roundtrip(request(1, "logging/setLevel", {{"level", "debug"}}));
  h.sink->clear();
  call(h, 2, "billing_charge", {{"cents", 9}}, false);
  bool logged = false;
  for (const auto& f : h.sink->frames()) {
    if (f.frame.value("method", "") == "notifications/message") {
      logged = f.frame["params"]["data"]["charging"] == 9;
    }
  }
  EXPECT_TRUE(logged);
}

middleware recorder(const std::string& name, const std::shared_ptr<std::vector<std::string>>& seen,
                    const std::shared_ptr<std::mutex>& mu) {
  return {.name = name,
          .before = [=](const middleware_request& r) -> std::optional<middleware_reply> {
            std::lock_guard g(*mu);
            seen->push_back(name + " " + std::string(r.method()) + " " + std::string(r.name()));
            return std::nullopt;
          }};
}

TEST(mount, the_childs_middleware_runs_after_the_parents_and_sees_the_childs_names) {
  mounted m;
  auto seen = std::make_shared<std::vector<std::string>>();
  auto mu = std::make_shared<std::mutex>();
  m.billing.add_middleware(recorder("child", seen, mu));  // after mounting: still applied
  m.shop.add_middleware(recorder("parent", seen, mu));
  harness h(m.shop);
  call(h, 1, "billing_charge", {{"cents", 1}});
  call(h, 2, "browse", json::object());
  h.roundtrip(modern_request(3, "resources/read", {{"uri", "mem://billing/invoices/3"}}));
  h.roundtrip(modern_request(4, "tools/list"));
  EXPECT_EQ(*seen, (std::vector<std::string>{
                       "parent tools/call billing_charge", "child tools/call charge",
                       "parent tools/call browse", "parent resources/read mem://billing/invoices/3",
                       "child resources/read mem://invoices/3", "parent tools/list "}));
}

TEST(mount, a_child_middleware_refusal_keeps_its_row) {
  mounted m;
  m.billing.add_middleware(
      {.name = "limit",
       .methods = {"tools/call"},
       .tools = {"charge"},
       .before = [](const middleware_request&) -> std::optional<middleware_reply> {
         return middleware_reply::with_refusal(refusal::rate_limited("charges per caller", 2s));
       }});
  harness h(m.shop);
  const json r = call(h, 1, "billing_charge", {{"cents", 1}});
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_EQ(r["result"]["_meta"]["mcpcxx/error"]["category"], "rate_limited");
  EXPECT_TRUE(has(r["result"]["content"][0]["text"], "billing_charge"));
  EXPECT_EQ(*m.runs, 0);
  harness legacy(m.shop);
  legacy.initialize();
  m.billing.add_middleware(
      {.name = "deny-prompts",
       .methods = {"prompts/get"},
       .before = [](const middleware_request&) -> std::optional<middleware_reply> {
         return middleware_reply::with_refusal(refusal::forbidden("no"));
       }});
  const json p = legacy.roundtrip(
      request(2, "prompts/get", {{"name", "billing_greet"}, {"arguments", {{"who", "x"}}}}));
  EXPECT_EQ(p["error"]["code"], error_code::invalid_params);
  EXPECT_EQ(p["error"]["data"]["reason"], "no");
  EXPECT_EQ(p["error"]["data"]["name"], "billing_greet");
}

TEST(mount, the_childs_scopes_hide_and_refuse_its_tools_in_the_parent) {
  mounted m;
  m.billing.add_tool({.name = "refund", .scopes = {"billing:write"}},
                     [](const json&, request_context&) { return tool_result::text("refunded"); });
  harness anon(m.shop);
  const auto listed = names(anon.roundtrip(modern_request(1, "tools/list")), "tools", "name");
  EXPECT_EQ(std::count(listed.begin(), listed.end(), "billing_refund"), 0);
  EXPECT_TRUE(call(anon, 2, "billing_refund", json::object()).contains("error"));
  harness writer(m.shop);
  writer.s.set_principal({{"sub", "wes"}, {"scopes", {"billing:write"}}});
  EXPECT_EQ(call(writer, 3, "billing_refund", json::object())["result"]["content"][0]["text"],
            "refunded");
}

TEST(mount, later_registrations_are_mirrored_and_announced) {
  mounted m;
  harness h(m.shop);
  h.initialize();
  h.sink->clear();
  m.billing.add_tool({.name = "void"},
                     [](const json&, request_context&) { return tool_result::text("voided"); });
  EXPECT_EQ(call(h, 1, "billing_void", json::object(), false)["result"]["content"][0]["text"],
            "voided");
  bool announced = false;
  for (int i = 0; i < 200 && !announced; ++i) {
    for (const auto& f : h.sink->frames()) {
      announced = announced || f.frame.value("method", "") == "notifications/tools/list_changed";
    }
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(announced);
  EXPECT_TRUE(m.billing.remove_prompt("greet"));
  EXPECT_TRUE(
      reply(h, 2,
            request(2, "prompts/get", {{"name", "billing_greet"}, {"arguments", {{"who", "x"}}}}))
          .contains("error"));
  EXPECT_TRUE(m.billing.remove_tool("void"));
  EXPECT_TRUE(call(h, 3, "billing_void", json::object(), false).contains("error"));
}

TEST(mount, a_childs_resource_update_reaches_the_parents_subscribers_under_the_mounted_uri) {
  mounted m;
  harness h(m.shop);
  h.initialize();
  h.roundtrip(request(1, "resources/subscribe", {{"uri", "mem://billing/invoice"}}));
  h.sink->clear();
  m.billing.notify_resource_updated("mem://invoice");
  bool got = false;
  for (int i = 0; i < 200 && !got; ++i) {
    for (const auto& f : h.sink->frames()) {
      got = got || (f.frame.value("method", "") == "notifications/resources/updated" &&
                    f.frame["params"]["uri"] == "mem://billing/invoice");
    }
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(got);
}

TEST(mount, a_collision_at_mount_time_is_refused_naming_both_servers_and_what_to_do) {
  server shop{named("shop")};
  server billing{named("billing-server")};
  add_billing(billing, std::make_shared<std::atomic<int>>(0));
  shop.add_tool({.name = "billing_charge"},
                [](const json&, request_context&) { return tool_result::text("mine"); });
  const std::string why = thrown([&] { shop.mount(billing, "billing"); });
  EXPECT_TRUE(has(why, "'billing-server'")) << why;
  EXPECT_TRUE(has(why, "'shop'")) << why;
  EXPECT_TRUE(has(why, "'billing_charge'")) << why;
  EXPECT_TRUE(has(why, "different prefix")) << why;
  harness h(shop);  // nothing of billing was mounted
  EXPECT_EQ(names(h.roundtrip(modern_request(1, "tools/list")), "tools", "name"),
            (std::vector<std::string>{"billing_charge"}));
  EXPECT_TRUE(
      h.roundtrip(modern_request(2, "prompts/get", {{"name", "billing_greet"}})).contains("error"));
  shop.mount(billing, "pay");  // another prefix works
  EXPECT_EQ(call(h, 3, "pay_charge", {{"cents", 1}})["result"]["content"][0]["text"], "charged 1");
}

TEST(mount, later_collisions_are_refused_at_registration_on_either_server) {
  mounted m;
  const auto noop = [](const json&, request_context&) { return tool_result::text(""); };
  const std::string parent_side =
      thrown([&] { m.shop.add_tool({.name = "billing_charge"}, noop); });
  EXPECT_TRUE(has(parent_side, "mounted at prefix 'billing'")) << parent_side;
  EXPECT_TRUE(has(parent_side, "'billing-server'")) << parent_side;
  m.shop.add_tool({.name = "billing_refund"}, noop);
  const std::string child_side = thrown([&] { m.billing.add_tool({.name = "refund"}, noop); });
  EXPECT_TRUE(has(child_side, "mounted into 'shop'")) << child_side;
  EXPECT_TRUE(has(child_side, "'billing_refund'")) << child_side;
  const std::string uri = thrown([&] {
    m.shop.add_resource(
        {.uri = "mem://billing/invoice", .name = "x"},
        [](const std::string&, request_context&) { return std::vector<resource_contents>{}; });
  });
  EXPECT_TRUE(has(uri, "resource 'mem://billing/invoice'")) << uri;
  const std::string long_name =
      thrown([&] { m.billing.add_tool({.name = std::string(60, 'x')}, noop); });
  EXPECT_TRUE(has(long_name, "over the 64")) << long_name;
  harness alone(m.billing);  // refused on the child: it was not registered there either
  EXPECT_EQ(names(alone.roundtrip(modern_request(1, "tools/list")), "tools", "name"),
            (std::vector<std::string>{"charge"}));
}

TEST(mount, self_mounts_cycles_bad_and_reused_prefixes_are_refused) {
  server a{named("a")};
  server b{named("b")};
  server c{named("c")};
  EXPECT_TRUE(has(thrown([&] { a.mount(a, "self"); }), "cannot be mounted into itself"));
  a.mount(b, "b");
  b.mount(c, "c");
  EXPECT_TRUE(has(thrown([&] { c.mount(a, "a"); }), "mount cycle"));
  EXPECT_TRUE(has(thrown([&] { b.mount(a, "a"); }), "mount cycle"));
  for (const char* bad : {"", "bil ling", ".x", "a/b", "ü"}) {
    EXPECT_TRUE(has(thrown([&] { a.mount(c, bad); }), "invalid prefix")) << bad;
  }
  EXPECT_TRUE(has(thrown([&] { a.mount(c, std::string(63, 'p')); }), "invalid prefix"));
  EXPECT_TRUE(has(thrown([&] { a.mount(c, "b"); }), "already has server 'b' mounted at prefix"));
}

TEST(mount, nested_mounts_compose_prefixes_and_propagate_changes) {
  server a{named("a")};
  server b{named("b")};
  server c{named("c")};
  c.add_tool({.name = "x"}, [](const json&, request_context&) { return tool_result::text("x!"); });
  b.mount(c, "c");
  a.mount(b, "b");
  harness h(a);
  EXPECT_EQ(call(h, 1, "b_c_x", json::object())["result"]["content"][0]["text"], "x!");
  c.add_tool({.name = "y"}, [](const json&, request_context&) { return tool_result::text("y!"); });
  EXPECT_EQ(call(h, 2, "b_c_y", json::object())["result"]["content"][0]["text"], "y!");
  a.add_tool({.name = "b_c_z"},
             [](const json&, request_context&) { return tool_result::text(""); });
  const std::string deep = thrown([&] {
    c.add_tool({.name = "z"}, [](const json&, request_context&) { return tool_result::text(""); });
  });
  EXPECT_TRUE(has(deep, "'b_c_z'")) << deep;
}

TEST(mount, uris_without_a_scheme_are_refused_and_the_uri_rule_is_reversible) {
  server a{named("a")};
  server b{named("b")};
  b.add_resource_template({.uri_template = "{+path}", .name = "any"},
                          [](const std::string&, const std::map<std::string, std::string>&,
                             request_context&) { return std::vector<resource_contents>{}; });
  EXPECT_TRUE(has(thrown([&] { a.mount(b, "b"); }), "has no \"scheme:\""));
}

}  // namespace
}  // namespace mcpcxx::testing
