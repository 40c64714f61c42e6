#include "transport/http/request_parser.hpp"

#include <algorithm>
#include <cctype>

#include <llhttp.h>

namespace mcpcxx::http {

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

using mcpcxx::wire::situation;

namespace {}  // namespace

const std::string* request::header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k == name) return &v;
  }
  return nullptr;
}

std::size_t request::header_count(std::string_view name) const {
  return static_cast<std::size_t>(std::count_if(headers.begin(), headers.end(),
                                                [&](const auto& h) { return h.first == name; }));
}

std::string_view request::path() const {
  std::string_view t = target;
  auto q = t.find_first_of("?#");
  return q == std::string_view::npos ? t : t.substr(0, q);
}

struct request_parser::impl {
  llhttp_t parser{};
};

struct request_parser::callbacks {
  static request_parser& self(llhttp_t* p) { return *static_cast<request_parser*>(p->data); }

  static int head_grow(request_parser& s, std::size_t n) {
    s.head_bytes_ += n;
    if (s.head_bytes_ > s.limits_.max_header_bytes) {
      return s.fail(
          {situation::H22_header_bytes_too_large, {{"limit", s.limits_.max_header_bytes}}});
    }
    return 0;
  }
  static int on_begin(llhttp_t* p) {
    self(p).started_ = true;
    return 0;
  }
  static int on_url(llhttp_t* p, const char* at, std::size_t n) {
    auto& s = self(p);
    s.current_.target.append(at, n);
    return head_grow(s, n);
  }
  static int on_field(llhttp_t* p, const char* at, std::size_t n) {
    auto& s = self(p);
    if (s.in_value_ && s.push_header() != 0) return -1;
    s.field_.append(at, n);
    return head_grow(s, n + 4);
  }
  static int on_value(llhttp_t* p, const char* at, std::size_t n) {
    auto& s = self(p);
    s.in_value_ = true;
    s.value_.append(at, n);
    return head_grow(s, n);
  }
  static int on_headers_complete(llhttp_t* p) {
    auto& s = self(p);
    if (s.in_value_ && s.push_header() != 0) return -1;
    s.current_.method = llhttp_method_name(static_cast<llhttp_method_t>(p->method));
    s.current_.keep_alive = llhttp_should_keep_alive(p) != 0;
    if ((p->flags & F_CONTENT_LENGTH) != 0 && p->content_length > s.limits_.max_body_bytes) {
      return s.fail({situation::H21_content_length_too_large,
                     {{"length", p->content_length}, {"limit", s.limits_.max_body_bytes}}});
    }
    s.in_body_ = true;
    const std::string* expect = s.current_.header("expect");
    s.continue_pending_ = expect != nullptr && lower_ascii(*expect) == "100-continue";
    return 0;
  }
  static int on_body(llhttp_t* p, const char* at, std::size_t n) {
    auto& s = self(p);
    if (s.current_.body.size() + n > s.limits_.max_body_bytes) {
      return s.fail({situation::H21a_body_too_large, {{"limit", s.limits_.max_body_bytes}}});
    }
    s.current_.body.append(at, n);
    return 0;
  }
  // The announced size is checked before any of the chunk arrives: waiting for a 1 GiB chunk
  // would hold the connection until the body timeout.
  static int on_chunk_header(llhttp_t* p) {
    auto& s = self(p);
    if (p->content_length > s.limits_.max_body_bytes - s.current_.body.size()) {
      return s.fail({situation::H21a_body_too_large, {{"limit", s.limits_.max_body_bytes}}});
    }
    return 0;
  }
  static int on_complete(llhttp_t* p) {
    self(p).complete_ = true;
    return HPE_PAUSED;
  }
};

namespace {

const llhttp_settings_t& settings() {
  static const llhttp_settings_t s = [] {
    llhttp_settings_t v;
    llhttp_settings_init(&v);
    using cb = request_parser::callbacks;
    v.on_message_begin = &cb::on_begin;
    v.on_url = &cb::on_url;
    v.on_header_field = &cb::on_field;
    v.on_header_value = &cb::on_value;
    v.on_headers_complete = &cb::on_headers_complete;
    v.on_body = &cb::on_body;
    v.on_chunk_header = &cb::on_chunk_header;
    v.on_message_complete = &cb::on_complete;
    return v;
  }();
  return s;
}

}  // namespace

request_parser::request_parser(parser_limits limits)
    : impl_(std::make_unique<impl>()), limits_(limits) {
  llhttp_init(&impl_->parser, HTTP_REQUEST, &settings());
  impl_->parser.data = this;
}

request_parser::~request_parser() = default;

int request_parser::fail(problem p) {
  failure_.status = mcpcxx::wire::http_status(p.which, false);
  failure_.message = mcpcxx::wire::render_text(p.which, p.args);
  failure_.what = std::move(p);
  return -1;
}

int request_parser::push_header() {
  if (current_.headers.size() >= limits_.max_headers) {
    return fail({situation::H22a_too_many_headers, {{"limit", limits_.max_headers}}});
  }
  current_.headers.emplace_back(lower_ascii(std::move(field_)), std::string(trim_ows(value_)));
  field_.clear();
  value_.clear();
  in_value_ = false;
  return 0;
}

parse_state request_parser::feed(const char* data, std::size_t size, std::size_t& consumed) {
  consumed = 0;
  if (complete_) return parse_state::complete;
  llhttp_errno_t err = llhttp_execute(&impl_->parser, data, size);
  if (err == HPE_OK) {
    consumed = size;
    return parse_state::need_more;
  }
  if (err == HPE_PAUSED && complete_) {
    consumed = static_cast<std::size_t>(llhttp_get_error_pos(&impl_->parser) - data);
    return parse_state::complete;
  }
  const char* why = llhttp_get_error_reason(&impl_->parser);
  if (failure_.message.empty() && err == HPE_INVALID_CHUNK_SIZE && why != nullptr &&
      std::string_view(why).find("overflow") != std::string_view::npos) {
    // A size too large for 64 bits is over any body limit: 413 like the sizes that fit.
    fail({situation::H21a_body_too_large, {{"limit", limits_.max_body_bytes}}});
  }
  if (failure_.message.empty()) {
    fail({situation::H23_malformed_http,
          {{"reason", why != nullptr ? why : "invalid input"}, {"errno", llhttp_errno_name(err)}}});
  }
  return parse_state::error;
}

parse_state request_parser::finish() {
  if (complete_) return parse_state::complete;
  if (!started_) return parse_state::need_more;
  fail({in_body_ ? situation::H24_truncated_body : situation::H24a_truncated_head});
  return parse_state::error;
}

request request_parser::take() {
  request out = std::move(current_);
  current_ = request{};
  field_.clear();
  value_.clear();
  in_value_ = false;
  head_bytes_ = 0;
  started_ = false;
  in_body_ = false;
  complete_ = false;
  continue_pending_ = false;
  llhttp_resume(&impl_->parser);
  return out;
}

}  // namespace mcpcxx::http
