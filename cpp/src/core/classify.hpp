// The one exception classifier for every kind of handler (tools, resources, prompts, completion,
// and the engine's own methods). mcpcxx's typed errors keep their category wherever raised:
//
//   raised                        tool handler                  other handlers
//   tool_error                    T2 isError, its category      P26: the error's text,
//                                                               -32602 for client-side categories,
//                                                               else -32603; data = its details
//   protocol_error                P23 passed through            P23 passed through
//   missing_client_capability     P13 -32021 (modern) / P25 (legacy: declare it in initialize)
//   resource_not_found            T7 isError,                   P20 -32002 (legacy) / P21 -32602
//                                 category not_found            (modern), data {uri}
//   (client_capability_error is a missing_client_capability: the same rows)
//   invalid_arguments_error       T1 isError, invalid_arguments as unexpected (P24)
//                                 (its violations)
//   url_elicitation_required      P30 -32042 data.elicitations  P30 (legacy; modern: as unexpected)
//   client_request_timeout        T8 isError, timeout           P31 -32603
//   client_request_error          T9 isError, unavailable       P32 -32603
//   client_answer_invalid         T10 isError                   P33 -32603
//   request_cancelled             H41 (the request is already settled: normally nothing is sent)
//   unexpected_error (foreign)    T3 isError + reference        P24 -32603 + reference
//   anything else                 T3 isError + reference        P24 -32603 + reference
//   input_required_signal         2026-07-28: the input_required outcome (not an error; the
//                                 signal is no std::exception, see engine/input_round.hpp)
//
// Unexpected failures get a fresh reference id; their what() (for unexpected_error, the summary
// and the full detail such as a Python traceback) is logged under that id, never sent unless
// server_options::expose_exception_details (tools only, summary only).
// Thread-safety: runs on the handler's thread; the log is thread-safe.
#pragma once

#include <exception>

#include "mcpcxx/errors.hpp"

#include "core/exchange.hpp"
#include "core/wire_errors.hpp"

namespace mcpcxx::detail {

class exchange;

/// Which kind of handler raised.
enum class handler_kind { tool, resource, prompt, completion, engine };

/// The outcome for exception `error` raised by a `kind` handler serving `ex`. `tool` describes
/// the tool for kind tool (nullptr: the failure happened outside the user handler, classified as
/// an engine failure).
method_outcome classify(std::exception_ptr error, const exchange& ex, handler_kind kind,
                        const wire::tool_facts* tool = nullptr);

/// The same outcome as classify() for an exception already caught as std::exception, without
/// rethrowing it (the handler's catch site passes it straight in).
method_outcome classify_caught(const std::exception& error, const exchange& ex, handler_kind kind,
                               const wire::tool_facts* tool = nullptr);

/// The classifier's row for a tool_error (T2 in a tool, P26 elsewhere), for callers that caught
/// it by type: the expected failure then costs one throw, not a throw and a rethrow.
method_outcome classify_tool_error(const tool_error& e, const wire::tool_facts* tool);

}  // namespace mcpcxx::detail
