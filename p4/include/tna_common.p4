// Shared pieces of p4lab's Tofino 1 (TNA) programs: the packet generator's ports, the probes'
// second pass (resubmit), and the register elements that more than one program uses.
// Include after <tna.p4> (it uses PortId_t and ResubmitType_t from tofino1_specs.p4).
// Checked against p4lang/p4c backends/tofino/bf-p4c/p4include: tofino1_specs.p4 at 2ec8e737,
// tofino1_base.p4 at 4d9bc819 (pktgen_timer_header_t, Resubmit, RegisterAction).
#ifndef _P4LAB_TNA_COMMON_P4_
#define _P4LAB_TNA_COMMON_P4_

// Constants are declared only for the programs that use them (p4c warns about unused ones): a
// program #defines P4LAB_TNA_PKTGEN (it parses generated packets) and P4LAB_TNA_PROBE_PASSES
// (its probes take two passes) before including this file.

#ifdef P4LAB_TNA_PKTGEN
// The packet generator's ports on Tofino 1 are 68..71 of each pipe (dev port bits 6:0), so
// the parser matches 68 under a mask that ignores the pipe bits and the two low bits.
const PortId_t PKTGEN_PORT      = 68;
const PortId_t PKTGEN_PORT_MASK = 0x07C;

// A generated packet is the 6-byte pktgen header followed by the pktgen buffer from the
// configured offset. p4lab's buffers hold a whole probe frame minus its first 6 bytes: the
// 8 bytes that end an Ethernet header (ignored), then the probe header, then padding.
const bit<32> PKTGEN_SKIP_BITS = 64;
#endif

#ifdef P4LAB_TNA_PROBE_PASSES
// Probes that need the utilization of the link they arrived on are resubmitted once: the
// first pass reads the link's register (placed after the forwarding decision, because data
// packets update it by egress port), the second pass updates the per-destination state
// (placed before the forwarding decision, because data packets read it). One pass cannot
// do both without reading a register before and after the same register access.
const ResubmitType_t RESUBMIT_PROBE = 1;

// What a packet is, in the programs with probes (hula, dhlb): they classify it once, then
// touch every register at one place.
const bit<3> KIND_NONE          = 0;  // pktgen, dropped, or not forwarded by ipv4Route
const bit<3> KIND_PROBE_MEASURE = 1;  // probe, first pass
const bit<3> KIND_PROBE_UPDATE  = 2;  // probe, second pass (resubmitted)
const bit<3> KIND_DATA          = 3;  // IPv4 to a local host
const bit<3> KIND_DATA_TOR      = 4;  // IPv4 to a remote ToR
#endif

// Resubmit data: exactly 64 bits on Tofino 1.
header probe_pass_t {
    bit<8>  value;  // hula: path utilization with the arrival link; dhlb: the link's load degree
    bit<8>  force;  // hula: 1 when this probe must replace the best hop (none yet, or from it)
    bit<48> pad;
}

// A utilization estimator cell (linkUtil, dre): bytes sent in the current window of 2^k ns.
struct util_window_t {
    bit<32> epoch;
    bit<32> bytes;
}

#endif  // _P4LAB_TNA_COMMON_P4_
