// The public session facade and frame_sink's out-of-line default: the core's session_state
// constructs sessions and sends batch replies through frame_sink, so both are defined in the core
// (defined in engine/, a target linking only the core's lower layers left them unresolved).
#include "mcpcxx/session.hpp"

#include "mcpcxx/context.hpp"
#include "mcpcxx/jsonrpc.hpp"

#include "core/server_core.hpp"
#include "core/session_state.hpp"

namespace mcpcxx {

void frame_sink::send_pieces(std::vector<std::string> pieces, const frame_info& info) {
  std::size_t total = 0;
  for (const auto& p : pieces) total += p.size();
  std::string frame;
  frame.reserve(total);
  for (auto& p : pieces) {
    frame.append(p);
    p = std::string();  // release each piece once copied, so the peak stays near one copy
  }
  send_frame(std::move(frame), info);
}

session::session(std::shared_ptr<detail::session_state> state) : state_(std::move(state)) {}

std::shared_ptr<detail::session_state> detail::state_of(const session& s) { return s.state_; }

void session::receive(std::string_view bytes, const std::shared_ptr<frame_sink>& reply_to,
                      era_hint hint) {
  state_->receive(jsonrpc::parse(bytes, state_->core().options().limits), reply_to, hint);
}
void session::receive(jsonrpc::message msg, const std::shared_ptr<frame_sink>& reply_to,
                      era_hint hint) {
  state_->receive(std::move(msg), reply_to, hint);
}
void session::receive(jsonrpc::message msg, const std::shared_ptr<frame_sink>& reply_to,
                      era_hint hint, json http_headers) {
  state_->receive(std::move(msg), reply_to, hint,
                  std::make_shared<const json>(std::move(http_headers)));
}
void session::cancel(const jsonrpc::request_id& id, std::string_view reason) {
  state_->cancel(id, reason);
}
bool session::shutdown(std::chrono::milliseconds grace, leftover_requests rest,
                       std::optional<std::chrono::milliseconds> cancelled_wait) {
  return state_->shutdown(grace, rest, cancelled_wait.value_or(grace));
}
std::size_t session::refuse_unstarted() {
  return state_->refuse_unstarted(leftover_requests::answer_stopped);
}
void session::wait_idle() const { state_->wait_idle(); }
std::size_t session::in_flight() const { return state_->in_flight_count(); }
std::string session::negotiated_version() const { return state_->legacy_version(); }
bool session::legacy_initialized() const { return !state_->legacy_version().empty(); }
void session::set_principal(json principal) {
  std::string identity = principal_identity(principal);
  state_->set_principal(std::move(principal), std::move(identity));
}
void session::set_principal(json principal, std::string identity) {
  state_->set_principal(std::move(principal), std::move(identity));
}
void session::notify(std::string_view method, const json& params) {
  state_->send(nullptr, jsonrpc::serialize_notification(method, params),
               {frame_kind::notification});
}

std::size_t session::end_listens(std::string_view reason) {
  const auto& end_streams = state_->core().hooks().end_streams;
  return end_streams ? end_streams(state_.get(), reason) : 0;
}

}  // namespace mcpcxx
