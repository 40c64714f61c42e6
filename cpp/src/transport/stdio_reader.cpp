// Input side of the stdio transport.
#include "transport/stdio_reader.hpp"

#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

#include "mcpcxx/error_codes.hpp"
#include "mcpcxx/jsonrpc.hpp"

namespace mcpcxx::stdio_detail {

namespace {

constexpr std::size_t k_read_chunk = 64 * 1024;

}  // namespace

line_reader::line_reader(asio::io_context& io, int fd, session target,
                         std::shared_ptr<frame_writer> writer, std::size_t max_line_bytes,
                         end_callback on_end, log_writer log)
    : in_(std::make_unique<asio::posix::stream_descriptor>(io)),
      session_(std::move(target)),
      writer_(std::move(writer)),
      max_line_bytes_(max_line_bytes),
      splitter_(max_line_bytes),
      buffer_(k_read_chunk),
      on_end_(std::move(on_end)),
      log_(std::move(log)) {
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (copy < 0) throw std::system_error(errno, std::generic_category(), "stdio: dup of input fd");
  std::error_code ec;
  in_->assign(copy, ec);
  if (ec) {
    ::close(copy);
    throw std::system_error(ec, "stdio: cannot use the input fd");
  }
}

void line_reader::start() { read_some(); }

void line_reader::read_some() {
  in_->async_read_some(asio::buffer(buffer_), [this](const std::error_code& ec, std::size_t n) {
    if (n > 0) splitter_.feed(std::string_view(buffer_.data(), n), *this);
    if (ec) {
      if (ec == asio::error::eof) splitter_.finish(*this);
      on_end_(ec == asio::error::eof ? std::error_code() : ec);
      return;
    }
    read_some();
  });
}

void line_reader::release() { in_.reset(); }

void line_reader::on_line(std::string_view line) {
  try {
    session_.receive(line);
  } catch (const std::exception& e) {
    // The engine answers bad input itself; reaching here is an engine defect, not client error.
    log_stdio(log_, "error", std::string("session.receive threw: ") + e.what());
  }
}

void line_reader::on_overlong() {
  writer_->send(jsonrpc::serialize_error(
      std::nullopt, {error_code::invalid_request,
                     "Message exceeds the maximum size of " + std::to_string(max_line_bytes_) +
                         " bytes; send smaller messages.",
                     nullptr}));
}

void log_stdio(const std::function<void(std::string_view)>& writer, std::string_view level,
               std::string_view message) {
  const std::string line =
      json{{"level", level}, {"component", "stdio"}, {"message", message}}.dump(
          -1, ' ', false, json::error_handler_t::replace);
  if (writer) {
    writer(line);
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

}  // namespace mcpcxx::stdio_detail
