// Line splitting for the stdio transport.
#include "transport/stdio_framing.hpp"

#include "jsonrpc/scan.hpp"

namespace mcpcxx::stdio_detail {

void line_splitter::deliver(std::string_view line, line_handler& handler) const {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.size() > max_) {
    handler.on_overlong();
  } else if (!jsonrpc::detail::is_blank(line)) {
    handler.on_line(line);
  }
}

void line_splitter::feed(std::string_view chunk, line_handler& handler) {
  while (!chunk.empty()) {
    const std::size_t nl = chunk.find('\n');
    if (discarding_) {
      if (nl == std::string_view::npos) return;
      discarding_ = false;
      chunk.remove_prefix(nl + 1);
      continue;
    }
    if (nl == std::string_view::npos) {
      // One extra byte is allowed for a "\r" that the line end may still strip.
      if (buffer_.size() + chunk.size() > max_ + 1) {
        buffer_.clear();
        buffer_.shrink_to_fit();
        discarding_ = true;
        handler.on_overlong();
      } else {
        buffer_.append(chunk);
      }
      return;
    }
    if (buffer_.empty()) {
      deliver(chunk.substr(0, nl), handler);  // zero-copy: the line lies inside the chunk
    } else {
      buffer_.append(chunk.substr(0, nl));
      deliver(buffer_, handler);
      buffer_.clear();
    }
    chunk.remove_prefix(nl + 1);
  }
}

void line_splitter::finish(line_handler& handler) {
  if (!discarding_ && !buffer_.empty()) deliver(buffer_, handler);
  buffer_.clear();
  discarding_ = false;
}

}  // namespace mcpcxx::stdio_detail
