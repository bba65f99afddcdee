// Code generated from the http1 list of rules/events_applayer.go (Suricata's
// http_decoder_event_table, src/app-layer-htp.c); keep the order: the index is the event id.

package http

// Event ids of HTTP/1 app-layer events (app-layer-event:http.<name>).
const (
	EvUnknownError                            uint8 = 0  // unknown_error
	EvGzipDecompressionFailed                 uint8 = 1  // gzip_decompression_failed
	EvRequestFieldMissingColon                uint8 = 2  // request_field_missing_colon
	EvResponseFieldMissingColon               uint8 = 3  // response_field_missing_colon
	EvInvalidRequestChunkLen                  uint8 = 4  // invalid_request_chunk_len
	EvInvalidResponseChunkLen                 uint8 = 5  // invalid_response_chunk_len
	EvInvalidTransferEncodingValueInRequest   uint8 = 6  // invalid_transfer_encoding_value_in_request
	EvInvalidTransferEncodingValueInResponse  uint8 = 7  // invalid_transfer_encoding_value_in_response
	EvInvalidContentLengthFieldInRequest      uint8 = 8  // invalid_content_length_field_in_request
	EvInvalidContentLengthFieldInResponse     uint8 = 9  // invalid_content_length_field_in_response
	EvDuplicateContentLengthFieldInRequest    uint8 = 10 // duplicate_content_length_field_in_request
	EvDuplicateContentLengthFieldInResponse   uint8 = 11 // duplicate_content_length_field_in_response
	Ev100ContinueAlreadySeen                  uint8 = 12 // 100_continue_already_seen
	EvUnableToMatchResponseToRequest          uint8 = 13 // unable_to_match_response_to_request
	EvInvalidServerPortInRequest              uint8 = 14 // invalid_server_port_in_request
	EvInvalidAuthorityPort                    uint8 = 15 // invalid_authority_port
	EvRequestHeaderInvalid                    uint8 = 16 // request_header_invalid
	EvResponseHeaderInvalid                   uint8 = 17 // response_header_invalid
	EvMissingHostHeader                       uint8 = 18 // missing_host_header
	EvHostHeaderAmbiguous                     uint8 = 19 // host_header_ambiguous
	EvInvalidRequestFieldFolding              uint8 = 20 // invalid_request_field_folding
	EvInvalidResponseFieldFolding             uint8 = 21 // invalid_response_field_folding
	EvRequestFieldTooLong                     uint8 = 22 // request_field_too_long
	EvResponseFieldTooLong                    uint8 = 23 // response_field_too_long
	EvRequestLineInvalid                      uint8 = 24 // request_line_invalid
	EvRequestBodyUnexpected                   uint8 = 25 // request_body_unexpected
	EvResponseBodyUnexpected                  uint8 = 26 // response_body_unexpected
	EvRequestServerPortTcpPortMismatch        uint8 = 27 // request_server_port_tcp_port_mismatch
	EvRequestUriHostInvalid                   uint8 = 28 // request_uri_host_invalid
	EvRequestHeaderHostInvalid                uint8 = 29 // request_header_host_invalid
	EvRequestAuthUnrecognized                 uint8 = 30 // request_auth_unrecognized
	EvRequestHeaderRepetition                 uint8 = 31 // request_header_repetition
	EvResponseHeaderRepetition                uint8 = 32 // response_header_repetition
	EvDoubleEncodedUri                        uint8 = 33 // double_encoded_uri
	EvUriDelimNonCompliant                    uint8 = 34 // uri_delim_non_compliant
	EvMethodDelimNonCompliant                 uint8 = 35 // method_delim_non_compliant
	EvRequestLineLeadingWhitespace            uint8 = 36 // request_line_leading_whitespace
	EvTooManyEncodingLayers                   uint8 = 37 // too_many_encoding_layers
	EvRequestTooManyLzmaLayers                uint8 = 38 // request_too_many_lzma_layers
	EvResponseTooManyLzmaLayers               uint8 = 39 // response_too_many_lzma_layers
	EvAbnormalCeHeader                        uint8 = 40 // abnormal_ce_header
	EvResponseMultipartByteranges             uint8 = 41 // response_multipart_byteranges
	EvResponseAbnormalTransferEncoding        uint8 = 42 // response_abnormal_transfer_encoding
	EvResponseChunkedOldProto                 uint8 = 43 // response_chunked_old_proto
	EvResponseInvalidProtocol                 uint8 = 44 // response_invalid_protocol
	EvResponseInvalidStatus                   uint8 = 45 // response_invalid_status
	EvRequestLineIncomplete                   uint8 = 46 // request_line_incomplete
	EvProtocolContainsExtraData               uint8 = 47 // protocol_contains_extra_data
	EvContentLengthExtraDataStart             uint8 = 48 // content_length_extra_data_start
	EvContentLengthExtraDataEnd               uint8 = 49 // content_length_extra_data_end
	EvSwitchingProtoWithContentLength         uint8 = 50 // switching_proto_with_content_length
	EvDeformedEol                             uint8 = 51 // deformed_eol
	EvParserStateError                        uint8 = 52 // parser_state_error
	EvMissingOutboundTransactionData          uint8 = 53 // missing_outbound_transaction_data
	EvMissingInboundTransactionData           uint8 = 54 // missing_inbound_transaction_data
	EvZeroLengthDataChunks                    uint8 = 55 // zero_length_data_chunks
	EvRequestLineUnknownMethod                uint8 = 56 // request_line_unknown_method
	EvRequestLineUnknownMethodNoProtocol      uint8 = 57 // request_line_unknown_method_no_protocol
	EvRequestLineUnknownMethodInvalidProtocol uint8 = 58 // request_line_unknown_method_invalid_protocol
	EvRequestLineMissingProtocol              uint8 = 59 // request_line_missing_protocol
	EvResponseLineInvalidProtocol             uint8 = 60 // response_line_invalid_protocol
	EvResponseLineInvalidResponseStatus       uint8 = 61 // response_line_invalid_response_status
	EvResponseBodyInternalError               uint8 = 62 // response_body_internal_error
	EvRequestBodyDataCallbackError            uint8 = 63 // request_body_data_callback_error
	EvResponseInvalidEmptyName                uint8 = 64 // response_invalid_empty_name
	EvRequestInvalidEmptyName                 uint8 = 65 // request_invalid_empty_name
	EvResponseInvalidLwsAfterName             uint8 = 66 // response_invalid_lws_after_name
	EvResponseHeaderNameNotToken              uint8 = 67 // response_header_name_not_token
	EvRequestInvalidLwsAfterName              uint8 = 68 // request_invalid_lws_after_name
	EvLzmaDecompressionDisabled               uint8 = 69 // lzma_decompression_disabled
	EvConnectionAlreadyOpen                   uint8 = 70 // connection_already_open
	EvCompressionBombDoubleLzma               uint8 = 71 // compression_bomb_double_lzma
	EvInvalidContentEncoding                  uint8 = 72 // invalid_content_encoding
	EvInvalidGap                              uint8 = 73 // invalid_gap
	EvRequestChunkExtension                   uint8 = 74 // request_chunk_extension
	EvResponseChunkExtension                  uint8 = 75 // response_chunk_extension
	EvLzmaMemlimitReached                     uint8 = 76 // lzma_memlimit_reached
	EvCompressionBomb                         uint8 = 77 // compression_bomb
	EvCompressionBombLimitReached             uint8 = 78 // compression_bomb_limit_reached
	EvRequestTooManyHeaders                   uint8 = 79 // request_too_many_headers
	EvResponseTooManyHeaders                  uint8 = 80 // response_too_many_headers
	EvMultipartGenericError                   uint8 = 81 // multipart_generic_error
	EvMultipartNoFiledata                     uint8 = 82 // multipart_no_filedata
	EvMultipartInvalidHeader                  uint8 = 83 // multipart_invalid_header
	EvTooManyWarnings                         uint8 = 84 // too_many_warnings
	EvRangeInvalid                            uint8 = 85 // range_invalid
	EvFileNameTooLong                         uint8 = 86 // file_name_too_long
	EvFailedProtocolChange                    uint8 = 87 // failed_protocol_change
)

// EventNames names the events by id: the single source of the list (Parser.Events).
var EventNames = []string{
	"unknown_error",
	"gzip_decompression_failed",
	"request_field_missing_colon",
	"response_field_missing_colon",
	"invalid_request_chunk_len",
	"invalid_response_chunk_len",
	"invalid_transfer_encoding_value_in_request",
	"invalid_transfer_encoding_value_in_response",
	"invalid_content_length_field_in_request",
	"invalid_content_length_field_in_response",
	"duplicate_content_length_field_in_request",
	"duplicate_content_length_field_in_response",
	"100_continue_already_seen",
	"unable_to_match_response_to_request",
	"invalid_server_port_in_request",
	"invalid_authority_port",
	"request_header_invalid",
	"response_header_invalid",
	"missing_host_header",
	"host_header_ambiguous",
	"invalid_request_field_folding",
	"invalid_response_field_folding",
	"request_field_too_long",
	"response_field_too_long",
	"request_line_invalid",
	"request_body_unexpected",
	"response_body_unexpected",
	"request_server_port_tcp_port_mismatch",
	"request_uri_host_invalid",
	"request_header_host_invalid",
	"request_auth_unrecognized",
	"request_header_repetition",
	"response_header_repetition",
	"double_encoded_uri",
	"uri_delim_non_compliant",
	"method_delim_non_compliant",
	"request_line_leading_whitespace",
	"too_many_encoding_layers",
	"request_too_many_lzma_layers",
	"response_too_many_lzma_layers",
	"abnormal_ce_header",
	"response_multipart_byteranges",
	"response_abnormal_transfer_encoding",
	"response_chunked_old_proto",
	"response_invalid_protocol",
	"response_invalid_status",
	"request_line_incomplete",
	"protocol_contains_extra_data",
	"content_length_extra_data_start",
	"content_length_extra_data_end",
	"switching_proto_with_content_length",
	"deformed_eol",
	"parser_state_error",
	"missing_outbound_transaction_data",
	"missing_inbound_transaction_data",
	"zero_length_data_chunks",
	"request_line_unknown_method",
	"request_line_unknown_method_no_protocol",
	"request_line_unknown_method_invalid_protocol",
	"request_line_missing_protocol",
	"response_line_invalid_protocol",
	"response_line_invalid_response_status",
	"response_body_internal_error",
	"request_body_data_callback_error",
	"response_invalid_empty_name",
	"request_invalid_empty_name",
	"response_invalid_lws_after_name",
	"response_header_name_not_token",
	"request_invalid_lws_after_name",
	"lzma_decompression_disabled",
	"connection_already_open",
	"compression_bomb_double_lzma",
	"invalid_content_encoding",
	"invalid_gap",
	"request_chunk_extension",
	"response_chunk_extension",
	"lzma_memlimit_reached",
	"compression_bomb",
	"compression_bomb_limit_reached",
	"request_too_many_headers",
	"response_too_many_headers",
	"multipart_generic_error",
	"multipart_no_filedata",
	"multipart_invalid_header",
	"too_many_warnings",
	"range_invalid",
	"file_name_too_long",
	"failed_protocol_change",
}
