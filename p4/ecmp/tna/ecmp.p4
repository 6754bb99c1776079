/* ECMP for Tofino 1 (TNA).
 *
 * Algorithm: each packet to a remote ToR takes one of the 16 buckets of that
 * ToR's next-hop group, chosen by a CRC16 hash of the 5-tuple.
 *
 * Tables (MyIngress):
 *   ipv4Route  key hdr.ipv4.dstAddr: lpm             actions toHost(port, dmac), toTor(tor), drop
 *   nextHop    key meta.dstTor: exact, meta.bucket: exact  actions setEgress(port), drop
 * Counters: MyEgress.portTx[MAX_PORTS] packets and bytes, by egress port.
 * Registers: none. Multicast: none. Headers: ethernet / ipv4 / tcp | udp.
 * The egress parser extracts only the intrinsic metadata; the packet passes through unparsed.
 *
 * Configured by src-main/core/controlplane, rendering bfrt_python
 * (bfrt.ecmp.pipe.MyIngress.<table>.add_with_<action>).
 * Checked against p4lang/p4c backends/tofino/bf-p4c/p4include: tna.p4 and
 * tofino1_arch.p4 at f155d030 (TNA 2.0.1), tofino1_base.p4 at 4d9bc819,
 * tofino1_specs.p4 at ba9cf72a.
 */
#include <core.p4>
#include <tna.p4>
#include "../../include/headers.p4"

/* ---- constants ---- */
const bit<32> MAX_PORTS    = 512;
const bit<8>  BUCKET_MASK  = 0x0F;  // 16 buckets per next-hop group
const int     ROUTE_SIZE   = 1024;
const int     NEXTHOP_SIZE = 16384;

/* ---- headers ---- */
struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    tcp_t      tcp;
    udp_t      udp;
}

/* ---- metadata ---- */
struct ig_metadata_t {
    bit<16> dstTor;
    bit<8>  bucket;
    bit<16> l4Src;
    bit<16> l4Dst;
}

struct eg_metadata_t { }

/* ---- parsers ---- */
parser IngressParser(packet_in pkt, out headers_t hdr, out ig_metadata_t meta,
                     out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        meta.dstTor = 0;
        meta.bucket = 0;
        meta.l4Src = 0;
        meta.l4Dst = 0;
        transition parse_ethernet;
    }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            TYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            PROTO_TCP: parse_tcp;
            PROTO_UDP: parse_udp;
            default: accept;
        }
    }
    state parse_tcp {
        pkt.extract(hdr.tcp);
        meta.l4Src = hdr.tcp.srcPort;
        meta.l4Dst = hdr.tcp.dstPort;
        transition accept;
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        meta.l4Src = hdr.udp.srcPort;
        meta.l4Dst = hdr.udp.dstPort;
        transition accept;
    }
}

parser EgressParser(packet_in pkt, out headers_t hdr, out eg_metadata_t meta,
                    out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        transition accept;
    }
}

/* ---- ingress ---- */
control MyIngress(inout headers_t hdr, inout ig_metadata_t meta,
                  in ingress_intrinsic_metadata_t ig_intr_md,
                  in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                  inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                  inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    Hash<bit<8>>(HashAlgorithm_t.CRC16) bucketHash;

    action drop() {
        ig_dprsr_md.drop_ctl = 1;
    }
    action toHost(bit<9> port, bit<48> dmac) {
        ig_tm_md.ucast_egress_port = port;
        hdr.ethernet.dstAddr = dmac;
    }
    action toTor(bit<16> tor) {
        meta.dstTor = tor;
    }
    action setEgress(bit<9> port) {
        ig_tm_md.ucast_egress_port = port;
    }

    table ipv4Route {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { toHost; toTor; drop; }
        default_action = drop();
        size = ROUTE_SIZE;
    }
    table nextHop {
        key = { meta.dstTor: exact; meta.bucket: exact; }
        actions = { setEgress; drop; }
        default_action = drop();
        size = NEXTHOP_SIZE;
    }

    apply {
        if (!hdr.ipv4.isValid() || hdr.ipv4.ttl <= 1) {
            drop();
        } else {
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
            switch (ipv4Route.apply().action_run) {
                toTor: {
                    meta.bucket = bucketHash.get({ hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol,
                                                   meta.l4Src, meta.l4Dst }) & BUCKET_MASK;
                    nextHop.apply();
                }
            }
        }
    }
}

/* ---- egress ---- */
control MyEgress(inout headers_t hdr, inout eg_metadata_t meta,
                 in egress_intrinsic_metadata_t eg_intr_md,
                 in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                 inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                 inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    Counter<bit<64>, PortId_t>(MAX_PORTS, CounterType_t.PACKETS_AND_BYTES) portTx;
    apply {
        portTx.count(eg_intr_md.egress_port);
    }
}

/* ---- deparsers ---- */
control IngressDeparser(packet_out pkt, inout headers_t hdr, in ig_metadata_t meta,
                        in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    Checksum() ipv4Checksum;
    apply {
        hdr.ipv4.hdrChecksum = ipv4Checksum.update({
            hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
            hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
            hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr });
        pkt.emit(hdr);
    }
}

control EgressDeparser(packet_out pkt, inout headers_t hdr, in eg_metadata_t meta,
                       in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

/* ---- switch ---- */
Pipeline(IngressParser(), MyIngress(), IngressDeparser(), EgressParser(), MyEgress(), EgressDeparser()) pipe;
Switch(pipe) main;
