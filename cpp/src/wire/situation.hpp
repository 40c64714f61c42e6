// The situation table: one row per failure the server can answer, from the JSON-RPC codec up to
// the HTTP transport. Only this layer composes error text; every other layer names a row (the
// `situation` enum) and passes its arguments. docs/error-model.md is generated from these rows
// (tests/cpp/wire checks it).
//
// Template notation, used in `row::message`:
//   {name}          the argument `name`: strings verbatim, any other JSON value as compact JSON
//   {name:json}     the argument as compact JSON even when it is a string (quoted)
//   {name:list}     an array argument joined with ", " (strings verbatim)
//   {name:bullets}  a multi-line string argument, each line prefixed with "- "
//   [ ... ]         an optional segment: rendered only when every argument inside it is present
//                   (brackets enclosing no placeholder are literal text)
// A missing required argument is a programming error: the placeholder renders as "?" (and the
// data key as null), the miss is counted (missing_argument_count) and asserts in debug builds.
// Rendering never throws to the caller.
//
// Thread-safety: the table is immutable; all functions are pure and may run concurrently
// (missing_argument_count is an atomic counter).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "mcpcxx/json.hpp"
#include "mcpcxx/jsonrpc.hpp"

namespace mcpcxx::wire {

/// Every situation, in the table's (and the documentation's) order. Names are `<id>_<what>`.
enum class situation : std::uint8_t {
  // ---- codec (cpp/src/jsonrpc) ----
  P1_not_json,
  P1a_empty_message,
  P1b_invalid_utf8,
  P1c_lone_surrogate,
  P1d_number_out_of_range,
  P2_not_an_object,
  P2a_nested_batch_array,
  P2b_bad_jsonrpc_version,
  P2c_bad_id_type,
  P2d_method_not_string,
  P2e_params_not_structured,
  P2f_neither_call_nor_response,
  P2g_response_result_and_error,
  P2h_response_bad_error_object,
  P2i_response_bad_id,
  P3_message_too_large,
  P3a_message_too_deep,
  P3c_stdio_line_too_long,
  // ---- engine: session and routing ----
  P4_batch_not_allowed,
  P5_initialize_in_batch,
  P5a_empty_batch,
  P6_duplicate_request_id,
  P7_already_initialized,
  P8_method_not_found,
  P9_method_not_in_era,
  P10_capability_not_advertised,
  P11_missing_modern_meta,
  P12_unsupported_version,
  P13_missing_client_capability,
  P14_not_initialized,
  P15_invalid_params,
  P15a_param_missing,
  P15b_param_invalid,
  P16_tool_name_missing,
  P16a_tool_arguments_not_object,
  P17_unknown_tool,
  P18_invalid_cursor,
  P19_unknown_prompt,
  P19a_missing_prompt_arguments,
  P20_resource_not_found_legacy,
  P21_resource_not_found_modern,
  P61_unknown_skill,
  P62_not_a_directory,
  P22_invalid_log_level,
  P23_handler_protocol_error,
  P24_internal_error,
  P25_missing_client_capability_legacy,
  P26_handler_tool_error,
  P27_stopped_before_reply,
  P27a_stopped_before_start,
  P28_batch_too_many_members,
  P29_batch_reply_too_large,
  P30_url_elicitation_required,
  P31_client_request_timeout,
  P32_client_request_error,
  P33_client_answer_invalid,
  P34_request_state_not_authentic,
  P35_request_state_expired,
  P36_request_state_other_method,
  P37_request_state_other_params,
  P38_request_state_other_principal,
  P39_listen_filter_missing,
  P40_listen_flag_not_boolean,
  P41_listen_uris_not_array,
  P42_listen_too_many_uris,
  P43_listen_too_many_listeners,
  P44_listen_uri_invalid,
  // tasks (P45-P53; P54 reserved for them)
  P45_task_not_found,
  P46_task_cursor_invalid,
  P47_task_already_terminal,
  P48_task_augmentation_forbidden,
  P49_task_augmentation_required,
  P50_task_store_full,
  P51_task_cancelled_no_result,
  P52_listen_task_ids_invalid,
  P53_task_replica_lost,
  P55_tool_insufficient_scope,
  P56_tool_needs_authentication,
  P57_store_unavailable,
  // middleware refusals (mcpcxx/middleware.hpp)
  P58_middleware_forbidden,
  P59_rate_limited,
  P60_reply_too_large,
  // the `mcpcxx dev` proxy (python/mcpcxx/cli), rendered through render_error_row
  P63_dev_server_exited,
  // scopes and principal rules of resources, templates and prompts (and rules of tools)
  P64_primitive_insufficient_scope,
  P65_primitive_needs_authentication,
  P66_primitive_not_allowed,
  // ---- tool execution errors (CallToolResult with isError: true) ----
  T1_invalid_arguments,
  T2_tool_error,
  T3_unexpected_read_only,
  T3w_unexpected_may_have_run,
  T4_output_mismatch_read_only,
  T4w_output_mismatch_applied,
  T5_timeout_read_only,
  T5w_timeout_may_have_run,
  T6_tool_reported_error,
  T7_tool_resource_not_found,
  T8_client_request_timeout,
  T9_client_request_error,
  T10_client_answer_invalid,
  T11_repeat_in_progress,
  T12_repeat_outcome_unknown,
  T13_repeat_result_not_kept,
  T14_rate_limited,
  T15_result_too_large_read_only,
  T15w_result_too_large_applied,
  // ---- Streamable HTTP transport ----
  H1_host_forbidden,
  H2_origin_forbidden,
  H3_path_not_found,
  H4_method_not_allowed,
  H4a_method_not_allowed_modern_only,
  H5_get_on_modern,
  H6_delete_on_modern,
  H7_metadata_method_not_allowed,
  H8_post_not_acceptable,
  H9_get_not_acceptable,
  H10_unsupported_media_type,
  H11_bad_last_event_id,
  H12_get_stream_conflict,
  H13_session_id_missing,
  H14_session_not_found,
  H15_session_version_mismatch,
  H16_shutting_down,
  H17_too_many_sessions,
  H18_stopped_before_reply,
  H19_unauthorized,
  H20_insufficient_scope,
  H21_content_length_too_large,
  H21a_body_too_large,
  H22_header_bytes_too_large,
  H22a_too_many_headers,
  H23_malformed_http,
  H24_truncated_body,
  H24a_truncated_head,
  H25_request_timeout,
  H26_handler_crashed,
  H27_modern_batch,
  H28_modern_response,
  H29_header_repeated,
  H30_header_bad_encoding,
  H31_version_header_missing,
  H32_version_header_mismatch,
  H33_method_header_missing,
  H34_method_header_mismatch,
  H35_name_header_missing,
  H36_name_header_mismatch,
  H37_param_header_without_argument,
  H38_param_header_missing,
  H39_param_header_mismatch,
  H40_header_repeated,
  H41_request_cancelled,
  H42_tool_insufficient_scope,
  H43_auth_unavailable,
  H44_primitive_insufficient_scope,
  H50_metrics_method_not_allowed,
  H51_store_unavailable,
};

/// Which protocol eras a row applies to.
enum class eras : std::uint8_t { legacy, modern, both };

/// What a row renders to.
enum class shape : std::uint8_t {
  error_object,  ///< a JSON-RPC error object (P and H rows)
  tool_result,   ///< a CallToolResult with isError: true (T rows)
};

/// Sentinel for `row::code`: the code comes from the `code` argument (P23).
inline constexpr int k_code_from_args = 0;
/// Sentinel for `row::retryable`: the value comes from the arguments (T2).
inline constexpr int k_from_args = -1;

/// One situation: everything the wire and the documentation need to know about it.
struct row {
  situation which;
  std::string_view id;  ///< stable id: "P1", "P1a", "T3w", "H21", ...
  eras era;
  shape kind;
  int code;                      ///< JSON-RPC code (a constant of error_codes.hpp); 0 for tool rows
  int http_legacy;               ///< HTTP status on a legacy session (0: no HTTP reply of its own)
  int http_modern;               ///< HTTP status on a 2026-07-28 request
  std::string_view message;      ///< the message (or tool text) template
  std::string_view data_keys;    ///< space-separated keys copied from the arguments into data
  std::string_view description;  ///< one line for the documentation: when this row applies
  std::string_view golden;       ///< golden transcript file under tests/golden ("" if none yet)
  std::string_view category = {};  ///< tool rows: error category (empty: from the arguments)
  std::string_view effect = {};    ///< tool rows: error effect (empty: from the arguments)
  int retryable = 0;               ///< tool rows: 0 false, 1 true, k_from_args
};

/// All rows in documentation order; rows()[i].which == situation(i).
std::span<const row> rows() noexcept;
/// The row of `s`.
const row& row_of(situation s) noexcept;
/// The row with stable id `id` ("P8"); nullptr when there is none.
const row* find_row(std::string_view id) noexcept;

/// Renders a P or H row as a JSON-RPC error object: message from the template, data from the
/// listed keys (omitted when the row lists none), code from the row (P23: from args "code").
jsonrpc::error_object render(situation s, const json& args = json::object()) noexcept;
/// A rendered error object as JSON {code, message[, data]} (e.g. a failed task's stored error,
/// answered later as row P23).
json error_json(const jsonrpc::error_object& e);

/// Renders a T row as a CallToolResult with isError: true. `args` holds "name" (the tool) plus
/// the row's placeholders and data keys. The details object {category, retryable, effect,
/// resource, ...data keys} goes to _meta["mcpcxx/error"], and also to structuredContent unless
/// `has_output_schema` (a client validating structured output must never see a foreign shape).
/// T2 takes "message" and "details" (the tool_error's own); T6 returns args["result"] unchanged.
/// details.resource is args "resource" when given, else the tool name.
json render_tool_result(situation s, const json& args, bool has_output_schema) noexcept;
/// Row T2 from a tool_error's own fields, without an arguments object: the same result as
/// render_tool_result(T2_tool_error, {"message": message, "details": details}, ...).
json render_tool_error_result(const std::string& message, json details,
                              bool has_output_schema) noexcept;

/// A T row's CallToolResult in two parts, for a writer that adds the details as it writes:
/// `result` holds content and isError; `details` (null when the row has none: T6, a row that is
/// not a tool result, a render that failed) belongs at _meta["mcpcxx/error"] and, when
/// `structured`, also at structuredContent. Put back, the parts equal render_tool_result's.
struct tool_failure_parts {
  json result;
  json details;
  bool structured = false;
};
/// The parts put together: the details at _meta["mcpcxx/error"] and, when `structured`, at
/// structuredContent; `result` as it is when there are none. May throw bad_alloc.
json whole_tool_result(tool_failure_parts parts);
/// render_tool_result in parts, the data keys moved out of `args`.
tool_failure_parts render_tool_failure(situation s, json&& args, bool has_output_schema) noexcept;

/// Only the text of a row's template filled from `args` (no data, no code).
std::string render_text(situation s, const json& args) noexcept;

/// The HTTP status for `s` in the given era (modern = 2026-07-28). Rows without an HTTP status of
/// their own in that era (tool rows) return 200: the JSON-RPC body rides on a 200.
int http_status(situation s, bool modern) noexcept;

/// The HTTP status for the row with stable id `id` (frame_info::situation, e.g. "P8"); 200 for
/// an empty id (a result or notification) and 500 for an id the table does not know (a bug).
int http_status(std::string_view id, bool modern) noexcept;

/// How many renders so far met a missing argument (a programming error; tests assert on it).
std::size_t missing_argument_count() noexcept;

}  // namespace mcpcxx::wire
