// p4lab's cabling check program (Tofino 1, TNA). It is loaded instead of the scheme's program
// while the mapped front-panel ports come up and the frame check runs (tofino/frames.ts), and
// replaced by the scheme's program afterwards. It does two things only:
// - a frame from the packet generator (pipe-local port 68..71) leaves by the DEV_PORT its
//   buffer names, rewritten into a broadcast Ethernet frame of EtherType 0x88B5 (IEEE 802
//   local experimental), so each burst leaves by exactly one port;
// - every other frame is dropped, so a port's RX counter rises only by what its cable's far
//   end sent (the MAC counts frames before the pipeline drops them).
// Written against tna.p4 / tofino1_base.p4 as p4/include/tna_common.p4 cites them
// (pktgen_timer_header_t: the 6-byte header the generator puts in front of its buffer).
#include <core.p4>
#include <tna.p4>

const bit<16> CABLE_MARKER = 0x88B5;

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

// The generator's buffer: 8 bytes p4lab leaves zero (the end of an Ethernet header in the
// scheme programs' probe buffers, kept here so both buffers start alike), then this header.
header skip_t {
    bit<64> zero;
}

header cable_t {
    bit<16> marker;       // CABLE_MARKER
    bit<16> egress_port;  // the DEV_PORT the burst leaves by
    bit<32> tag;          // the check's round tag (for a capture on the far end; not used here)
}

struct headers_t {
    pktgen_timer_header_t timer;
    skip_t                skip;
    ethernet_t            ethernet;
    cable_t               cable;
}

struct meta_t {}

parser IngressParser(packet_in pkt, out headers_t hdr, out meta_t meta,
                     out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        transition select(ig_intr_md.ingress_port) {
            68 &&& 0x07C: parse_pktgen;
            default: accept;
        }
    }
    state parse_pktgen {
        pkt.extract(hdr.timer);
        pkt.extract(hdr.skip);
        pkt.extract(hdr.cable);
        transition accept;
    }
}

control Ingress(inout headers_t hdr, inout meta_t meta,
                in ingress_intrinsic_metadata_t ig_intr_md,
                in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    apply {
        if (hdr.cable.isValid() && hdr.cable.marker == CABLE_MARKER) {
            hdr.timer.setInvalid();
            hdr.skip.setInvalid();
            hdr.ethernet.setValid();
            hdr.ethernet.dst = 0xFFFFFFFFFFFF;
            hdr.ethernet.src = 0x020000000001;
            hdr.ethernet.ether_type = CABLE_MARKER;
            ig_tm_md.ucast_egress_port = (PortId_t) hdr.cable.egress_port[8:0];
            ig_tm_md.bypass_egress = 1;
        } else {
            ig_dprsr_md.drop_ctl = 1;
        }
    }
}

control IngressDeparser(packet_out pkt, inout headers_t hdr, in meta_t meta,
                        in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.cable);
    }
}

struct eg_headers_t {}

parser EgressParser(packet_in pkt, out eg_headers_t hdr, out meta_t meta,
                    out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        transition accept;
    }
}

control Egress(inout eg_headers_t hdr, inout meta_t meta,
               in egress_intrinsic_metadata_t eg_intr_md,
               in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
               inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
               inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    apply {}
}

control EgressDeparser(packet_out pkt, inout eg_headers_t hdr, in meta_t meta,
                       in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply {}
}

Pipeline(IngressParser(), Ingress(), IngressDeparser(), EgressParser(), Egress(), EgressDeparser()) pipe;
Switch(pipe) main;
