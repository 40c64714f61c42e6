// The floor of bench/peers: not an MCP server, just what every stdio server must at least do per
// call. A blocking loop reads a line, parses it with nlohmann, builds the echo (or isError) result,
// dumps it and writes it. It answers initialize so the driver can treat it like the peers.
#include <cstdio>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

namespace {

nlohmann::json answer(const nlohmann::json& request) {
  const std::string& method = request.at("method").get_ref<const std::string&>();
  if (method == "initialize") {
    return {{"protocolVersion", "2025-11-25"},
            {"capabilities", {{"tools", nlohmann::json::object()}}},
            {"serverInfo", {{"name", "floor"}, {"version", "1"}}}};
  }
  const nlohmann::json& params = request.at("params");
  const std::string text = params.at("arguments").value("text", "");
  if (params.at("name") == "echo") return {{"content", {{{"type", "text"}, {"text", text}}}}};
  return {{"content", {{{"type", "text"}, {"text", "fail: refused " + text}}}}, {"isError", true}};
}

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    const nlohmann::json request = nlohmann::json::parse(line, nullptr, false);
    if (request.is_discarded() || !request.contains("id")) continue;
    nlohmann::json reply = {{"jsonrpc", "2.0"}, {"id", request["id"]}};
    try {
      reply["result"] = answer(request);
    } catch (const nlohmann::json::exception& e) {
      reply["result"] = {{"content", {{{"type", "text"}, {"text", e.what()}}}}, {"isError", true}};
    }
    std::string out = reply.dump();
    out.push_back('\n');
    // Flush per reply only when no more input is buffered, as a real server would.
    std::cout.write(out.data(), static_cast<std::streamsize>(out.size()));
    if (std::cin.rdbuf()->in_avail() == 0) std::cout.flush();
  }
  return 0;
}
