// Shared header formats and protocol numbers for every p4lab program (v1model and TNA).
// Plain P4_16 core types only, so both p4c-bm2-ss and bf-p4c accept it.
#ifndef _P4LAB_HEADERS_P4_
#define _P4LAB_HEADERS_P4_

// p4c warns about every constant a program never uses ([--Wwarn=unused]), so the scheme's own
// protocol numbers are declared only for the program that #defines the matching name before
// including this file: P4LAB_HULA, P4LAB_CONGA, P4LAB_DHLB, P4LAB_FLOODGATE. The header types
// are declared for every program (p4c does not warn about unused types).
const bit<16> TYPE_IPV4   = 0x0800;
#ifdef P4LAB_HULA
const bit<16> TYPE_HULA   = 0x2345;  // HULA probe: ethernet / hula_t
#endif
#ifdef P4LAB_CONGA
const bit<16> TYPE_CONGA  = 0x2346;  // CONGA overlay: ethernet / conga_t / ipv4
#endif
#ifdef P4LAB_DHLB
const bit<16> TYPE_DHLB   = 0x2347;  // DHLB probe: ethernet / dhlb_t / dhlb_hop_t x hopCount
#endif
#ifdef P4LAB_FLOODGATE
const bit<16> TYPE_CREDIT = 0x2348;  // Floodgate credit: ethernet / credit_t
#endif
const bit<8>  PROTO_TCP   = 6;
const bit<8>  PROTO_UDP   = 17;

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<16> identification;
    bit<3>  flags;
    bit<13> fragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

header tcp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<32> seqNo;
    bit<32> ackNo;
    bit<4>  dataOffset;
    bit<4>  res;
    bit<8>  flags;
    bit<16> window;
    bit<16> checksum;
    bit<16> urgentPtr;
}

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> length;
    bit<16> checksum;
}

// HULA probe (4 bytes; the sender pads the frame to 64 B). torId is the ToR
// the probe advertises; minUtil is the largest link utilization on the path
// from that ToR, quantized to 8 bits (0 idle, 255 saturated).
header hula_t {
    bit<24> torId;
    bit<8>  minUtil;
}

// CONGA overlay (6 bytes) between Ethernet and the inner IPv4 header.
// lbTag/ce travel forward; fbLbTag/fbMetric carry feedback for the reverse
// direction (valid when fbValid is 1). etherType is the inner ethertype.
header conga_t {
    bit<16> srcLeaf;
    bit<4>  lbTag;
    bit<3>  ce;
    bit<4>  fbLbTag;
    bit<3>  fbMetric;
    bit<1>  fbValid;
    bit<1>  reserved;
    bit<16> etherType;
}

// DHLB probe (4 bytes) followed by hopCount hop records (at most DHLB_MAX_HOPS).
header dhlb_t {
    bit<16> originTor;
    bit<8>  minDegree;
    bit<8>  hopCount;
}

// One INT-like hop record (7 bytes).
header dhlb_hop_t {
    bit<16> switchId;
    bit<16> ingressPort;
    bit<16> egressPort;
    bit<8>  loadDegree;
}

#ifdef P4LAB_DHLB
const bit<8> DHLB_MAX_HOPS = 4;
#endif

// Floodgate credit (6 bytes): the downstream switch returns `bytes` of window
// for destination ToR dstTor to the upstream switch.
header credit_t {
    bit<16> dstTor;
    bit<32> bytes;
}

#endif  // _P4LAB_HEADERS_P4_
