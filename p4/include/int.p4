// INT option of the v1model programs (built with -DP4LAB_INT): INT-XD ("postcard") telemetry
// reports. A switch clones each IPv4 data packet that its intWatch table selects (egress to
// egress, through a mirror session the control plane points at the collector's port) and turns
// the clone into a Telemetry Report v2.0 packet (P4.org Applications WG, Telemetry Report
// Format Specification v2.0):
//
//   Ethernet / IPv4 / UDP (dst port from intReport) /
//   Telemetry Report Group Header   Ver 2, hw_id 0, Sequence Number (per switch), Node ID
//   Individual Report Header        RepType 1 (INT), InType 4 (IPv4), Report Length 16,
//                                   MD Length 7, F = 1, RepMdBits bits 1..5 (0x7C00)
//   INT main contents               Domain Specific ID / DSMdBits / DSMdstatus 0
//   metadata (bit order)            Level 1 Ingress/Egress Interface ID (16 + 16), Hop Latency
//                                   (ns), Queue ID (8) + Queue Occupancy (24, packets),
//                                   Ingress Timestamp (64, ns), Egress Timestamp (64, ns)
//   truncated packet                the original IPv4 header and the first 8 octets after it
//
// 118 bytes in all. BMv2 timestamps are microseconds; the report carries them × 1000 (ns).
// `p4lab int listen --port N` decodes these reports. Types and constants only; the tables and
// actions are in int_egress.p4, included inside each program's MyEgress control.
#ifndef _P4LAB_INT_P4_
#define _P4LAB_INT_P4_

const bit<32> INT_INSTANCE_NORMAL      = 0;
const bit<32> INT_INSTANCE_EGRESS_CLONE = 2;
/** clone_preserving_field_list id of the INT metadata (floodgate.p4 uses 1). */
const bit<8>  INT_FL                   = 2;
const bit<4>  INT_REPORT_VER           = 2;
const bit<4>  INT_REP_TYPE_INT         = 1;
const bit<4>  INT_IN_TYPE_IPV4         = 4;
const bit<16> INT_REP_MD_BITS          = 0x7C00;  // bits 1, 2, 3, 4, 5 (bit 0 is the MSB)
const bit<8>  INT_MD_WORDS             = 7;       // 4 + 4 + 4 + 8 + 8 octets
const bit<8>  INT_REPORT_WORDS         = 16;      // main contents 2 + metadata 7 + truncated packet 7
const bit<32> INT_REPORT_BYTES         = 118;     // 14 + 20 + 8 + 8 + 4 + 64
const bit<16> INT_IPV4_LEN             = 104;     // INT_REPORT_BYTES - 14
const bit<16> INT_UDP_LEN              = 84;      // INT_REPORT_BYTES - 34
const int     INT_SEQ_SIZE             = 1;
const int     INT_WATCH_SIZE           = 512;     // one entry per egress port

// Telemetry Report Group Header (8 octets)
header int_report_group_t {
    bit<4>  ver;
    bit<6>  hw_id;
    bit<22> seq_no;
    bit<32> node_id;
}

// Individual Report Header with the INT main contents (4 + 8 octets)
header int_report_individual_t {
    bit<4>  rep_type;
    bit<4>  in_type;
    bit<8>  rep_len;
    bit<8>  md_len;
    bit<1>  d;
    bit<1>  q;
    bit<1>  f;
    bit<1>  i;
    bit<4>  rsvd;
    bit<16> rep_md_bits;
    bit<16> domain_specific_id;
    bit<16> ds_md_bits;
    bit<16> ds_md_status;
}

// The metadata RepMdBits 0x7C00 selects, in bit order (28 octets)
header int_report_md_t {
    bit<16> ingress_interface_id;
    bit<16> egress_interface_id;
    bit<32> hop_latency;
    bit<8>  queue_id;
    bit<24> queue_occupancy;
    bit<64> ingress_timestamp;
    bit<64> egress_timestamp;
}

// Emitted before everything else in the deparser (all invalid except in a report clone).
struct int_report_headers_t {
    ethernet_t              ethernet;
    ipv4_t                  ipv4;
    udp_t                   udp;
    int_report_group_t      group;
    int_report_individual_t individual;
    int_report_md_t         md;
}

// The original packet's facts, carried into its clone (fields of the program's metadata_t).
#define P4LAB_INT_METADATA \
    @field_list(INT_FL) bit<9>  intIngressPort; \
    @field_list(INT_FL) bit<9>  intEgressPort;  \
    @field_list(INT_FL) bit<48> intIngressTs;   \
    @field_list(INT_FL) bit<48> intEgressTs;    \
    @field_list(INT_FL) bit<19> intQdepth;

#endif  // _P4LAB_INT_P4_
