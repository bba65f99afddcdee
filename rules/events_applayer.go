package rules

// appLayerEventNames are the app-layer event names of Suricata 8.0 per protocol (the protocol
// part of app-layer-event:<proto>.<event>; "http1" holds the HTTP/1 events, "file" the
// detection engine's file events).
var appLayerEventNames = map[string][]string{
	"bittorrent-dht": {
		"malformed_packet",
	},
	"dhcp": {
		"truncated_options", "malformed_options",
	},
	"dnp3": {
		"flooded", "len_too_small", "bad_link_crc", "bad_transport_crc", "malformed",
		"unknown_object", "too_many_points", "too_many_objects", "too_long_reassembly",
	},
	"dns": {
		"malformed_data", "not_request", "not_response", "z_flag_set", "invalid_opcode",
		"name_too_long", "infinite_loop", "too_many_labels", "invalid_additionals",
		"invalid_authorities",
	},
	"enip": {
		"too_many_transactions", "invalid_pdu",
	},
	"file": {
		"no_memory", "invalid_swf_length", "invalid_swf_version", "z_data_error", "z_stream_error",
		"z_buf_error", "z_unknown_error", "lzma_io_error", "lzma_header_too_short_error",
		"lzma_decoder_error", "lzma_memlimit_error", "lzma_xz_error", "lzma_unknown_error",
		"too_many_buffers", "post_match_queue_failed",
	},
	"ftp": {
		"request_command_too_long", "response_command_too_long", "too_many_transactions",
		"file_before_port", "file_without_name",
	},
	"http1": {
		"unknown_error", "gzip_decompression_failed", "request_field_missing_colon",
		"response_field_missing_colon", "invalid_request_chunk_len", "invalid_response_chunk_len",
		"invalid_transfer_encoding_value_in_request", "invalid_transfer_encoding_value_in_response",
		"invalid_content_length_field_in_request", "invalid_content_length_field_in_response",
		"duplicate_content_length_field_in_request", "duplicate_content_length_field_in_response",
		"100_continue_already_seen", "unable_to_match_response_to_request",
		"invalid_server_port_in_request", "invalid_authority_port", "request_header_invalid",
		"response_header_invalid", "missing_host_header", "host_header_ambiguous",
		"invalid_request_field_folding", "invalid_response_field_folding", "request_field_too_long",
		"response_field_too_long", "request_line_invalid", "request_body_unexpected",
		"response_body_unexpected", "request_server_port_tcp_port_mismatch",
		"request_uri_host_invalid", "request_header_host_invalid", "request_auth_unrecognized",
		"request_header_repetition", "response_header_repetition", "double_encoded_uri",
		"uri_delim_non_compliant", "method_delim_non_compliant", "request_line_leading_whitespace",
		"too_many_encoding_layers", "request_too_many_lzma_layers", "response_too_many_lzma_layers",
		"abnormal_ce_header", "response_multipart_byteranges", "response_abnormal_transfer_encoding",
		"response_chunked_old_proto", "response_invalid_protocol", "response_invalid_status",
		"request_line_incomplete", "protocol_contains_extra_data", "content_length_extra_data_start",
		"content_length_extra_data_end", "switching_proto_with_content_length", "deformed_eol",
		"parser_state_error", "missing_outbound_transaction_data",
		"missing_inbound_transaction_data", "zero_length_data_chunks", "request_line_unknown_method",
		"request_line_unknown_method_no_protocol", "request_line_unknown_method_invalid_protocol",
		"request_line_missing_protocol", "response_line_invalid_protocol",
		"response_line_invalid_response_status", "response_body_internal_error",
		"request_body_data_callback_error", "response_invalid_empty_name",
		"request_invalid_empty_name", "response_invalid_lws_after_name",
		"response_header_name_not_token", "request_invalid_lws_after_name",
		"lzma_decompression_disabled", "connection_already_open", "compression_bomb_double_lzma",
		"invalid_content_encoding", "invalid_gap", "request_chunk_extension",
		"response_chunk_extension", "lzma_memlimit_reached", "compression_bomb",
		"compression_bomb_limit_reached", "request_too_many_headers", "response_too_many_headers",
		"multipart_generic_error", "multipart_no_filedata", "multipart_invalid_header",
		"too_many_warnings", "range_invalid", "file_name_too_long", "failed_protocol_change",
	},
	"http2": {
		"invalid_frame_header", "invalid_client_magic", "invalid_frame_data", "invalid_header",
		"invalid_frame_length", "extra_header_data", "long_frame_data", "stream_id_reuse",
		"invalid_http1_settings", "failed_decompression", "invalid_range", "header_integer_overflow",
		"too_many_streams", "authority_host_mismatch", "userinfo_in_uri", "reassembly_limit_reached",
		"dns_request_too_long", "dns_response_too_long", "data_stream_zero", "too_many_frames",
		"compression_bomb",
	},
	"ike": {
		"malformed_data", "no_encryption", "weak_crypto_enc", "weak_crypto_prf", "weak_crypto_dh",
		"weak_crypto_auth", "weak_crypto_no_dh", "weak_crypto_no_auth", "invalid_proposal",
		"unknown_proposal", "payload_extra_data", "multiple_server_proposal",
	},
	"krb5": {
		"malformed_data", "weak_encryption",
	},
	"ldap": {
		"too_many_transactions", "invalid_data", "request_not_found", "incomplete_data",
		"too_many_responses",
	},
	"mdns": {
		"malformed_data", "not_request", "not_response", "z_flag_set", "invalid_opcode",
		"name_too_long", "infinite_loop", "too_many_labels", "invalid_additionals",
		"invalid_authorities",
	},
	"modbus": {
		"unsolicited_response", "invalid_function_code", "invalid_length", "invalid_value",
		"invalid_exception_code", "value_mismatch", "flooded", "invalid_protocol_id",
	},
	"mqtt": {
		"missing_connect", "missing_publish", "missing_subscribe", "missing_unsubscribe",
		"double_connect", "unintroduced_message", "invalid_qos_level", "missing_msg_id",
		"unassigned_msg_type", "too_many_transactions", "malformed_traffic", "too_many_messages",
	},
	"nfs": {
		"empty_message", "malformed_data", "non_existing_version", "too_many_transactions",
		"unsupported_version",
	},
	"ntp": {
		"unsolicited_response", "malformed_data",
	},
	"pgsql": {
		"invalid_length", "malformed_request", "malformed_response", "too_many_transactions",
	},
	"pop3": {
		"too_many_transactions", "request_too_long", "incorrect_argument_count", "unknown_command",
		"response_too_long",
	},
	"quic": {
		"failed_decrypt", "error_on_data", "error_on_header", "crypto_frag_too_long",
	},
	"rfb": {
		"unimplemented_security_type", "unknown_security_result", "malformed_message",
		"confused_state",
	},
	"sip": {
		"incomplete_data", "invalid_data",
	},
	"smb": {
		"internal_error", "malformed_data", "record_overflow", "malformed_ntlmssp_request",
		"malformed_ntlmssp_response", "duplicate_negotiate", "negotiate_malformed_dialects",
		"file_overlap", "request_to_client", "response_to_server",
		"negotiate_max_read_size_too_large", "negotiate_max_write_size_too_large",
		"read_request_too_large", "read_response_too_large", "read_queue_size_exceeded",
		"read_queue_cnt_exceeded", "write_request_too_large", "write_queue_size_exceeded",
		"write_queue_cnt_exceeded", "unusual_ntlmssp_order", "too_many_transactions",
	},
	"smtp": {
		"invalid_reply", "unable_to_match_reply_with_request", "max_command_line_len_exceeded",
		"max_reply_line_len_exceeded", "invalid_pipelined_sequence", "bdat_chunk_len_exceeded",
		"no_server_welcome_message", "tls_rejected", "data_command_rejected",
		"failed_protocol_change", "mime_parse_failed", "mime_invalid_base64", "mime_invalid_qp",
		"mime_long_line", "mime_long_enc_line", "mime_long_header_name", "mime_long_header_value",
		"mime_long_boundary", "mime_long_filename", "duplicate_fields", "unparsable_content",
		"truncated_line",
	},
	"snmp": {
		"malformed_data", "unknown_security_model", "version_mismatch",
	},
	"ssh": {
		"invalid_banner", "long_banner", "invalid_record", "long_kex_record",
	},
	"telnet": {},
	"tls": {
		"invalid_sslv2_header", "invalid_tls_header", "invalid_record_version",
		"invalid_record_type", "invalid_record_length", "invalid_handshake_message",
		"heartbeat_message", "invalid_heartbeat_message", "overflow_heartbeat_message",
		"dataleak_heartbeat_mismatch", "handshake_invalid_length", "multiple_sni_extensions",
		"invalid_sni_type", "invalid_sni_length", "too_many_records_in_packet",
		"invalid_alert_message", "invalid_certificate", "certificate_invalid_length",
		"certificate_invalid_version", "certificate_invalid_serial",
		"certificate_invalid_algorithmidentifier", "certificate_invalid_x509name",
		"certificate_invalid_date", "certificate_invalid_extensions", "certificate_invalid_der",
		"certificate_invalid_subject", "certificate_invalid_issuer", "certificate_invalid_validity",
		"error_message_encountered", "invalid_ssl_record",
	},
	"websocket": {
		"skip_end_of_payload", "reassembly_limit_reached",
	},
}

// appLayerEvents is appLayerEventNames as sets.
var appLayerEvents = func() map[string]map[string]bool {
	m := make(map[string]map[string]bool, len(appLayerEventNames))
	for p, names := range appLayerEventNames {
		set := make(map[string]bool, len(names))
		for _, n := range names {
			set[n] = true
		}
		m[p] = set
	}
	return m
}()
