package decode

import "math/bits"

// Event is a decoder event: something malformed or unusual seen while decoding. The names
// (Event.String) are Suricata's decoder event names, used in stats as decoder.event.<name>.
type Event uint8

// EventSet is the set of events raised for one packet. It is a value type; adding an event
// does not allocate.
type EventSet [4]uint64

// Add records e.
func (s *EventSet) Add(e Event) { s[e>>6] |= 1 << (e & 63) }

// Has reports whether e was recorded.
func (s *EventSet) Has(e Event) bool { return s[e>>6]&(1<<(e&63)) != 0 }

// Empty reports whether no event was recorded.
func (s *EventSet) Empty() bool { return s[0]|s[1]|s[2]|s[3] == 0 }

// Each calls fn for every event in the set, in ascending order. It does not allocate.
func (s *EventSet) Each(fn func(e Event)) {
	for w, word := range s {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &= word - 1
			fn(Event(w<<6 | b))
		}
	}
}

// Decoder events. The zero value EventNone is not an event. The list follows Suricata's
// decoder events (decode-events.h) for the layers Meerkat decodes; some are defined only so
// that rules naming them (decode-event keyword) load, and are never raised.
const (
	EventNone Event = iota

	// Link layers.
	EventEthernetPktTooSmall      // ethernet.pkt_too_small
	EventEthernetUnknownEtherType // ethernet.unknown_ethertype
	EventVLANHeaderTooSmall       // vlan.header_too_small
	EventVLANUnknownType          // vlan.unknown_type
	EventVLANTooManyLayers        // vlan.too_many_layers
	EventSLLPktTooSmall           // sll.pkt_too_small (SLL and SLL2)
	EventLtnullPktTooSmall        // ltnull.pkt_too_small (BSD null and loop)
	EventLtnullUnsupportedType    // ltnull.unsupported_type
	EventIPRawInvalidIPVersion    // ipraw.invalid_ip_version

	// IPv4.
	EventIPv4PktTooSmall          // ipv4.pkt_too_small
	EventIPv4HlenTooSmall         // ipv4.hlen_too_small
	EventIPv4IPLenSmallerThanHlen // ipv4.iplen_smaller_than_hlen
	EventIPv4TruncPkt             // ipv4.trunc_pkt
	EventIPv4OptInvalid           // ipv4.opt_invalid
	EventIPv4OptInvalidLen        // ipv4.opt_invalid_len
	EventIPv4OptMalformed         // ipv4.opt_malformed
	EventIPv4OptPadRequired       // ipv4.opt_pad_required
	EventIPv4OptEOLRequired       // ipv4.opt_eol_required
	EventIPv4OptDuplicate         // ipv4.opt_duplicate
	EventIPv4OptUnknown           // ipv4.opt_unknown
	EventIPv4WrongIPVersion       // ipv4.wrong_ip_version
	EventIPv4ICMPv6               // ipv4.icmpv6
	EventIPv4FragPktTooLarge      // ipv4.frag_pkt_too_large (raised by defrag)
	EventIPv4FragOverlap          // ipv4.frag_overlap (raised by defrag)
	EventIPv4FragIgnored          // ipv4.frag_ignored

	// ICMPv4.
	EventICMPv4PktTooSmall    // icmpv4.pkt_too_small
	EventICMPv4UnknownType    // icmpv4.unknown_type
	EventICMPv4UnknownCode    // icmpv4.unknown_code
	EventICMPv4IPv4TruncPkt   // icmpv4.ipv4_trunc_pkt
	EventICMPv4IPv4UnknownVer // icmpv4.ipv4_unknown_ver

	// ICMPv6.
	EventICMPv6UnknownType             // icmpv6.unknown_type
	EventICMPv6UnknownCode             // icmpv6.unknown_code
	EventICMPv6PktTooSmall             // icmpv6.pkt_too_small
	EventICMPv6IPv6UnknownVersion      // icmpv6.ipv6_unknown_version
	EventICMPv6IPv6TruncPkt            // icmpv6.ipv6_trunc_pkt
	EventICMPv6MLDMessageWithInvalidHL // icmpv6.mld_message_with_invalid_hl
	EventICMPv6UnassignedType          // icmpv6.unassigned_type
	EventICMPv6ExperimentationType     // icmpv6.experimentation_type

	// IPv6.
	EventIPv6PktTooSmall         // ipv6.pkt_too_small
	EventIPv6TruncPkt            // ipv6.trunc_pkt
	EventIPv6TruncExthdr         // ipv6.trunc_exthdr
	EventIPv6ExthdrDuplFH        // ipv6.exthdr_dupl_fh
	EventIPv6ExthdrUselessFH     // ipv6.exthdr_useless_fh
	EventIPv6ExthdrDuplRH        // ipv6.exthdr_dupl_rh
	EventIPv6ExthdrDuplHH        // ipv6.exthdr_dupl_hh
	EventIPv6ExthdrDuplDH        // ipv6.exthdr_dupl_dh
	EventIPv6ExthdrDuplAH        // ipv6.exthdr_dupl_ah
	EventIPv6ExthdrDuplEH        // ipv6.exthdr_dupl_eh
	EventIPv6ExthdrInvalidOptlen // ipv6.exthdr_invalid_optlen
	EventIPv6WrongIPVersion      // ipv6.wrong_ip_version
	EventIPv6ExthdrAHResNotNull  // ipv6.exthdr_ah_res_not_null
	EventIPv6HopoptsUnknownOpt   // ipv6.hopopts_unknown_opt
	EventIPv6HopoptsOnlyPadding  // ipv6.hopopts_only_padding
	EventIPv6DstoptsUnknownOpt   // ipv6.dstopts_unknown_opt
	EventIPv6DstoptsOnlyPadding  // ipv6.dstopts_only_padding
	EventIPv6RHType0             // ipv6.rh_type_0
	EventIPv6ZeroLenPadN         // ipv6.zero_len_padn
	EventIPv6FHNonZeroReserved   // ipv6.fh_non_zero_reserved_field
	EventIPv6DataAfterNoneHeader // ipv6.data_after_none_header
	EventIPv6UnknownNextHeader   // ipv6.unknown_next_header
	EventIPv6ICMPv4              // ipv6.icmpv4
	EventIPv6FragPktTooLarge     // ipv6.frag_pkt_too_large (raised by defrag)
	EventIPv6FragOverlap         // ipv6.frag_overlap (raised by defrag)
	EventIPv6FragInvalidLength   // ipv6.frag_invalid_length
	EventIPv6FragIgnored         // ipv6.frag_ignored

	// TCP.
	EventTCPPktTooSmall   // tcp.pkt_too_small
	EventTCPHlenTooSmall  // tcp.hlen_too_small
	EventTCPInvalidOptlen // tcp.invalid_optlen
	EventTCPOptInvalidLen // tcp.opt_invalid_len
	EventTCPOptDuplicate  // tcp.opt_duplicate

	// UDP.
	EventUDPPktTooSmall  // udp.pkt_too_small
	EventUDPHlenTooSmall // udp.hlen_too_small
	EventUDPHlenInvalid  // udp.hlen_invalid
	EventUDPLenInvalid   // udp.len_invalid

	// SCTP.
	EventSCTPPktTooSmall // sctp.pkt_too_small

	// TCP stream engine: the stream events, raised by package stream, follow the decoder
	// events in Suricata's order (decode-events.h). Event.IsStream tells them apart.
	EventStream3WHSAckInWrongDir               // stream.3whs_ack_in_wrong_dir
	EventStream3WHSAsyncWrongSeq               // stream.3whs_async_wrong_seq
	EventStream3WHSRightSeqWrongAckEvasion     // stream.3whs_right_seq_wrong_ack_evasion
	EventStream3WHSSynAckInWrongDirection      // stream.3whs_synack_in_wrong_direction
	EventStream3WHSSynAckResendWithDiffAck     // stream.3whs_synack_resend_with_diff_ack
	EventStream3WHSSynAckResendWithDiffSeq     // stream.3whs_synack_resend_with_diff_seq
	EventStream3WHSSynAckToServerOnSynRecv     // stream.3whs_synack_toserver_on_syn_recv
	EventStream3WHSSynAckWithWrongAck          // stream.3whs_synack_with_wrong_ack
	EventStream3WHSSynAckFlood                 // stream.3whs_synack_flood
	EventStream3WHSSynAckTFODataIgnored        // stream.3whs_synack_tfo_data_ignored
	EventStream3WHSSynResendDiffSeqOnSynRecv   // stream.3whs_syn_resend_diff_seq_on_syn_recv
	EventStream3WHSSynToClientOnSynRecv        // stream.3whs_syn_toclient_on_syn_recv
	EventStream3WHSSynFlood                    // stream.3whs_syn_flood
	EventStream3WHSWrongSeqWrongAck            // stream.3whs_wrong_seq_wrong_ack
	EventStream3WHSAckDataInject               // stream.3whs_ack_data_inject
	EventStream4WHSSynAckWithWrongAck          // stream.4whs_synack_with_wrong_ack
	EventStream4WHSSynAckWithWrongSyn          // stream.4whs_synack_with_wrong_syn
	EventStream4WHSWrongSeq                    // stream.4whs_wrong_seq
	EventStream4WHSInvalidAck                  // stream.4whs_invalid_ack
	EventStreamCloseWaitAckOutOfWindow         // stream.closewait_ack_out_of_window
	EventStreamCloseWaitFinOutOfWindow         // stream.closewait_fin_out_of_window
	EventStreamCloseWaitPktBeforeLastAck       // stream.closewait_pkt_before_last_ack
	EventStreamCloseWaitInvalidAck             // stream.closewait_invalid_ack
	EventStreamClosingAckWrongSeq              // stream.closing_ack_wrong_seq
	EventStreamClosingInvalidAck               // stream.closing_invalid_ack
	EventStreamEstPacketOutOfWindow            // stream.est_packet_out_of_window
	EventStreamEstPktBeforeLastAck             // stream.est_pkt_before_last_ack
	EventStreamEstSynAckResend                 // stream.est_synack_resend
	EventStreamEstSynAckResendWithDiffAck      // stream.est_synack_resend_with_diff_ack
	EventStreamEstSynAckResendWithDiffSeq      // stream.est_synack_resend_with_diff_seq
	EventStreamEstSynAckToServer               // stream.est_synack_toserver
	EventStreamEstSynResend                    // stream.est_syn_resend
	EventStreamEstSynResendDiffSeq             // stream.est_syn_resend_diff_seq
	EventStreamEstSynToClient                  // stream.est_syn_toclient
	EventStreamEstInvalidAck                   // stream.est_invalid_ack
	EventStreamEstAckZWPData                   // stream.est_ack_zwp_data
	EventStreamFinInvalidAck                   // stream.fin_invalid_ack
	EventStreamFin1AckWrongSeq                 // stream.fin1_ack_wrong_seq
	EventStreamFin1FinWrongSeq                 // stream.fin1_fin_wrong_seq
	EventStreamFin1InvalidAck                  // stream.fin1_invalid_ack
	EventStreamFin2AckWrongSeq                 // stream.fin2_ack_wrong_seq
	EventStreamFin2FinWrongSeq                 // stream.fin2_fin_wrong_seq
	EventStreamFin2InvalidAck                  // stream.fin2_invalid_ack
	EventStreamFinButNoSession                 // stream.fin_but_no_session
	EventStreamFinOutOfWindow                  // stream.fin_out_of_window
	EventStreamFinSyn                          // stream.fin_syn
	EventStreamLastAckAckWrongSeq              // stream.lastack_ack_wrong_seq
	EventStreamLastAckInvalidAck               // stream.lastack_invalid_ack
	EventStreamRstButNoSession                 // stream.rst_but_no_session
	EventStreamTimeWaitAckWrongSeq             // stream.timewait_ack_wrong_seq
	EventStreamTimeWaitInvalidAck              // stream.timewait_invalid_ack
	EventStreamShutdownSynResend               // stream.shutdown_syn_resend
	EventStreamPktInvalidTimestamp             // stream.pkt_invalid_timestamp
	EventStreamPktInvalidAck                   // stream.pkt_invalid_ack
	EventStreamPktBrokenAck                    // stream.pkt_broken_ack
	EventStreamRstInvalidAck                   // stream.rst_invalid_ack
	EventStreamRstWithData                     // stream.rst_with_data
	EventStreamPktRetransmission               // stream.pkt_retransmission
	EventStreamPktSpuriousRetransmission       // stream.pkt_spurious_retransmission
	EventStreamPktBadWindowUpdate              // stream.pkt_bad_window_update
	EventStreamSuspectedRstInject              // stream.suspected_rst_inject
	EventStreamWrongThread                     // stream.wrong_thread
	EventStreamReassemblySegmentBeforeBaseSeq  // stream.reassembly_segment_before_base_seq
	EventStreamReassemblyNoSegment             // stream.reassembly_no_segment
	EventStreamReassemblySeqGap                // stream.reassembly_seq_gap
	EventStreamReassemblyOverlapDifferentData  // stream.reassembly_overlap_different_data
	EventStreamReassemblyDepthReached          // stream.reassembly_depth_reached
	EventStreamReassemblyInsertMemcap          // stream.reassembly_insert_memcap
	EventStreamReassemblyInsertLimit           // stream.reassembly_insert_limit
	EventStreamReassemblyInsertInvalid         // stream.reassembly_insert_invalid
	EventStreamReassemblyUrgentOOBLimitReached // stream.reassembly_urgent_oob_limit_reached

	// EventCount is one more than the largest event; events are numbered 1..EventCount-1.
	EventCount
)

var eventNames = [EventCount]string{
	EventNone: "",

	EventEthernetPktTooSmall:      "ethernet.pkt_too_small",
	EventEthernetUnknownEtherType: "ethernet.unknown_ethertype",
	EventVLANHeaderTooSmall:       "vlan.header_too_small",
	EventVLANUnknownType:          "vlan.unknown_type",
	EventVLANTooManyLayers:        "vlan.too_many_layers",
	EventSLLPktTooSmall:           "sll.pkt_too_small",
	EventLtnullPktTooSmall:        "ltnull.pkt_too_small",
	EventLtnullUnsupportedType:    "ltnull.unsupported_type",
	EventIPRawInvalidIPVersion:    "ipraw.invalid_ip_version",

	EventIPv4PktTooSmall:          "ipv4.pkt_too_small",
	EventIPv4HlenTooSmall:         "ipv4.hlen_too_small",
	EventIPv4IPLenSmallerThanHlen: "ipv4.iplen_smaller_than_hlen",
	EventIPv4TruncPkt:             "ipv4.trunc_pkt",
	EventIPv4OptInvalid:           "ipv4.opt_invalid",
	EventIPv4OptInvalidLen:        "ipv4.opt_invalid_len",
	EventIPv4OptMalformed:         "ipv4.opt_malformed",
	EventIPv4OptPadRequired:       "ipv4.opt_pad_required",
	EventIPv4OptEOLRequired:       "ipv4.opt_eol_required",
	EventIPv4OptDuplicate:         "ipv4.opt_duplicate",
	EventIPv4OptUnknown:           "ipv4.opt_unknown",
	EventIPv4WrongIPVersion:       "ipv4.wrong_ip_version",
	EventIPv4ICMPv6:               "ipv4.icmpv6",
	EventIPv4FragPktTooLarge:      "ipv4.frag_pkt_too_large",
	EventIPv4FragOverlap:          "ipv4.frag_overlap",
	EventIPv4FragIgnored:          "ipv4.frag_ignored",

	EventICMPv4PktTooSmall:    "icmpv4.pkt_too_small",
	EventICMPv4UnknownType:    "icmpv4.unknown_type",
	EventICMPv4UnknownCode:    "icmpv4.unknown_code",
	EventICMPv4IPv4TruncPkt:   "icmpv4.ipv4_trunc_pkt",
	EventICMPv4IPv4UnknownVer: "icmpv4.ipv4_unknown_ver",

	EventICMPv6UnknownType:             "icmpv6.unknown_type",
	EventICMPv6UnknownCode:             "icmpv6.unknown_code",
	EventICMPv6PktTooSmall:             "icmpv6.pkt_too_small",
	EventICMPv6IPv6UnknownVersion:      "icmpv6.ipv6_unknown_version",
	EventICMPv6IPv6TruncPkt:            "icmpv6.ipv6_trunc_pkt",
	EventICMPv6MLDMessageWithInvalidHL: "icmpv6.mld_message_with_invalid_hl",
	EventICMPv6UnassignedType:          "icmpv6.unassigned_type",
	EventICMPv6ExperimentationType:     "icmpv6.experimentation_type",

	EventIPv6PktTooSmall:         "ipv6.pkt_too_small",
	EventIPv6TruncPkt:            "ipv6.trunc_pkt",
	EventIPv6TruncExthdr:         "ipv6.trunc_exthdr",
	EventIPv6ExthdrDuplFH:        "ipv6.exthdr_dupl_fh",
	EventIPv6ExthdrUselessFH:     "ipv6.exthdr_useless_fh",
	EventIPv6ExthdrDuplRH:        "ipv6.exthdr_dupl_rh",
	EventIPv6ExthdrDuplHH:        "ipv6.exthdr_dupl_hh",
	EventIPv6ExthdrDuplDH:        "ipv6.exthdr_dupl_dh",
	EventIPv6ExthdrDuplAH:        "ipv6.exthdr_dupl_ah",
	EventIPv6ExthdrDuplEH:        "ipv6.exthdr_dupl_eh",
	EventIPv6ExthdrInvalidOptlen: "ipv6.exthdr_invalid_optlen",
	EventIPv6WrongIPVersion:      "ipv6.wrong_ip_version",
	EventIPv6ExthdrAHResNotNull:  "ipv6.exthdr_ah_res_not_null",
	EventIPv6HopoptsUnknownOpt:   "ipv6.hopopts_unknown_opt",
	EventIPv6HopoptsOnlyPadding:  "ipv6.hopopts_only_padding",
	EventIPv6DstoptsUnknownOpt:   "ipv6.dstopts_unknown_opt",
	EventIPv6DstoptsOnlyPadding:  "ipv6.dstopts_only_padding",
	EventIPv6RHType0:             "ipv6.rh_type_0",
	EventIPv6ZeroLenPadN:         "ipv6.zero_len_padn",
	EventIPv6FHNonZeroReserved:   "ipv6.fh_non_zero_reserved_field",
	EventIPv6DataAfterNoneHeader: "ipv6.data_after_none_header",
	EventIPv6UnknownNextHeader:   "ipv6.unknown_next_header",
	EventIPv6ICMPv4:              "ipv6.icmpv4",
	EventIPv6FragPktTooLarge:     "ipv6.frag_pkt_too_large",
	EventIPv6FragOverlap:         "ipv6.frag_overlap",
	EventIPv6FragInvalidLength:   "ipv6.frag_invalid_length",
	EventIPv6FragIgnored:         "ipv6.frag_ignored",

	EventTCPPktTooSmall:   "tcp.pkt_too_small",
	EventTCPHlenTooSmall:  "tcp.hlen_too_small",
	EventTCPInvalidOptlen: "tcp.invalid_optlen",
	EventTCPOptInvalidLen: "tcp.opt_invalid_len",
	EventTCPOptDuplicate:  "tcp.opt_duplicate",

	EventUDPPktTooSmall:  "udp.pkt_too_small",
	EventUDPHlenTooSmall: "udp.hlen_too_small",
	EventUDPHlenInvalid:  "udp.hlen_invalid",
	EventUDPLenInvalid:   "udp.len_invalid",

	EventSCTPPktTooSmall: "sctp.pkt_too_small",

	EventStream3WHSAckInWrongDir:               "stream.3whs_ack_in_wrong_dir",
	EventStream3WHSAsyncWrongSeq:               "stream.3whs_async_wrong_seq",
	EventStream3WHSRightSeqWrongAckEvasion:     "stream.3whs_right_seq_wrong_ack_evasion",
	EventStream3WHSSynAckInWrongDirection:      "stream.3whs_synack_in_wrong_direction",
	EventStream3WHSSynAckResendWithDiffAck:     "stream.3whs_synack_resend_with_diff_ack",
	EventStream3WHSSynAckResendWithDiffSeq:     "stream.3whs_synack_resend_with_diff_seq",
	EventStream3WHSSynAckToServerOnSynRecv:     "stream.3whs_synack_toserver_on_syn_recv",
	EventStream3WHSSynAckWithWrongAck:          "stream.3whs_synack_with_wrong_ack",
	EventStream3WHSSynAckFlood:                 "stream.3whs_synack_flood",
	EventStream3WHSSynAckTFODataIgnored:        "stream.3whs_synack_tfo_data_ignored",
	EventStream3WHSSynResendDiffSeqOnSynRecv:   "stream.3whs_syn_resend_diff_seq_on_syn_recv",
	EventStream3WHSSynToClientOnSynRecv:        "stream.3whs_syn_toclient_on_syn_recv",
	EventStream3WHSSynFlood:                    "stream.3whs_syn_flood",
	EventStream3WHSWrongSeqWrongAck:            "stream.3whs_wrong_seq_wrong_ack",
	EventStream3WHSAckDataInject:               "stream.3whs_ack_data_inject",
	EventStream4WHSSynAckWithWrongAck:          "stream.4whs_synack_with_wrong_ack",
	EventStream4WHSSynAckWithWrongSyn:          "stream.4whs_synack_with_wrong_syn",
	EventStream4WHSWrongSeq:                    "stream.4whs_wrong_seq",
	EventStream4WHSInvalidAck:                  "stream.4whs_invalid_ack",
	EventStreamCloseWaitAckOutOfWindow:         "stream.closewait_ack_out_of_window",
	EventStreamCloseWaitFinOutOfWindow:         "stream.closewait_fin_out_of_window",
	EventStreamCloseWaitPktBeforeLastAck:       "stream.closewait_pkt_before_last_ack",
	EventStreamCloseWaitInvalidAck:             "stream.closewait_invalid_ack",
	EventStreamClosingAckWrongSeq:              "stream.closing_ack_wrong_seq",
	EventStreamClosingInvalidAck:               "stream.closing_invalid_ack",
	EventStreamEstPacketOutOfWindow:            "stream.est_packet_out_of_window",
	EventStreamEstPktBeforeLastAck:             "stream.est_pkt_before_last_ack",
	EventStreamEstSynAckResend:                 "stream.est_synack_resend",
	EventStreamEstSynAckResendWithDiffAck:      "stream.est_synack_resend_with_diff_ack",
	EventStreamEstSynAckResendWithDiffSeq:      "stream.est_synack_resend_with_diff_seq",
	EventStreamEstSynAckToServer:               "stream.est_synack_toserver",
	EventStreamEstSynResend:                    "stream.est_syn_resend",
	EventStreamEstSynResendDiffSeq:             "stream.est_syn_resend_diff_seq",
	EventStreamEstSynToClient:                  "stream.est_syn_toclient",
	EventStreamEstInvalidAck:                   "stream.est_invalid_ack",
	EventStreamEstAckZWPData:                   "stream.est_ack_zwp_data",
	EventStreamFinInvalidAck:                   "stream.fin_invalid_ack",
	EventStreamFin1AckWrongSeq:                 "stream.fin1_ack_wrong_seq",
	EventStreamFin1FinWrongSeq:                 "stream.fin1_fin_wrong_seq",
	EventStreamFin1InvalidAck:                  "stream.fin1_invalid_ack",
	EventStreamFin2AckWrongSeq:                 "stream.fin2_ack_wrong_seq",
	EventStreamFin2FinWrongSeq:                 "stream.fin2_fin_wrong_seq",
	EventStreamFin2InvalidAck:                  "stream.fin2_invalid_ack",
	EventStreamFinButNoSession:                 "stream.fin_but_no_session",
	EventStreamFinOutOfWindow:                  "stream.fin_out_of_window",
	EventStreamFinSyn:                          "stream.fin_syn",
	EventStreamLastAckAckWrongSeq:              "stream.lastack_ack_wrong_seq",
	EventStreamLastAckInvalidAck:               "stream.lastack_invalid_ack",
	EventStreamRstButNoSession:                 "stream.rst_but_no_session",
	EventStreamTimeWaitAckWrongSeq:             "stream.timewait_ack_wrong_seq",
	EventStreamTimeWaitInvalidAck:              "stream.timewait_invalid_ack",
	EventStreamShutdownSynResend:               "stream.shutdown_syn_resend",
	EventStreamPktInvalidTimestamp:             "stream.pkt_invalid_timestamp",
	EventStreamPktInvalidAck:                   "stream.pkt_invalid_ack",
	EventStreamPktBrokenAck:                    "stream.pkt_broken_ack",
	EventStreamRstInvalidAck:                   "stream.rst_invalid_ack",
	EventStreamRstWithData:                     "stream.rst_with_data",
	EventStreamPktRetransmission:               "stream.pkt_retransmission",
	EventStreamPktSpuriousRetransmission:       "stream.pkt_spurious_retransmission",
	EventStreamPktBadWindowUpdate:              "stream.pkt_bad_window_update",
	EventStreamSuspectedRstInject:              "stream.suspected_rst_inject",
	EventStreamWrongThread:                     "stream.wrong_thread",
	EventStreamReassemblySegmentBeforeBaseSeq:  "stream.reassembly_segment_before_base_seq",
	EventStreamReassemblyNoSegment:             "stream.reassembly_no_segment",
	EventStreamReassemblySeqGap:                "stream.reassembly_seq_gap",
	EventStreamReassemblyOverlapDifferentData:  "stream.reassembly_overlap_different_data",
	EventStreamReassemblyDepthReached:          "stream.reassembly_depth_reached",
	EventStreamReassemblyInsertMemcap:          "stream.reassembly_insert_memcap",
	EventStreamReassemblyInsertLimit:           "stream.reassembly_insert_limit",
	EventStreamReassemblyInsertInvalid:         "stream.reassembly_insert_invalid",
	EventStreamReassemblyUrgentOOBLimitReached: "stream.reassembly_urgent_oob_limit_reached",
}

// String returns Suricata's name for the event, e.g. "ipv4.trunc_pkt"; "" for EventNone and
// for values past EventCount.
func (e Event) String() string {
	if e >= EventCount {
		return ""
	}
	return eventNames[e]
}

// AllEvents calls fn for every defined event (EventNone excluded), in numeric order.
func AllEvents(fn func(e Event)) {
	for e := Event(1); e < EventCount; e++ {
		fn(e)
	}
}

// EventByName returns the event Suricata calls name (e.g. "ipv6.exthdr_dupl_fh"); the match
// is case-insensitive ASCII. ok is false for an unknown name.
func EventByName(name string) (e Event, ok bool) {
	for e := Event(1); e < EventCount; e++ {
		if equalFoldASCII(eventNames[e], name) {
			return e, true
		}
	}
	return EventNone, false
}

// Raised reports whether Meerkat raises e on some input. The fragment-ignored events are
// raised by Suricata when its fragment pool is exhausted, which Meerkat's defragmenter has no
// counterpart of; a rule that names one is refused rather than loaded to never match.
// (ipv4.opt_unknown, ipv6.exthdr_dupl_eh and udp.hlen_invalid are never raised by Suricata
// 8 either, so rules naming them load and never match, as there; so do the stream events
// stream.wrong_thread, reassembly_segment_before_base_seq, reassembly_insert_limit and
// reassembly_insert_invalid, which Suricata 8.0.6 does not raise in Meerkat's setting.)
func (e Event) Raised() bool {
	switch e {
	case EventNone, EventIPv4FragIgnored, EventIPv6FragIgnored:
		return false
	}
	return e < EventCount
}

// IsDefragEvent reports whether e is raised by IP reassembly (package defrag) rather than by
// the decoder; those events are counted by defrag's counters, not by decode.Counters.
func (e Event) IsDefragEvent() bool {
	switch e {
	case EventIPv4FragPktTooLarge, EventIPv4FragOverlap, EventIPv6FragPktTooLarge, EventIPv6FragOverlap:
		return true
	}
	return false
}

// IsStream reports whether e is a stream event (stream.*, raised by package stream). Stream
// events are not decoder events: decoder stats (decoder.event.*) leave them out.
func (e Event) IsStream() bool {
	return e >= EventStream3WHSAckInWrongDir && e < EventCount
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
