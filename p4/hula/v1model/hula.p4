/* HULA for BMv2 simple_switch (v1model).
 *
 * Algorithm (Katta et al., SOSR'16): every ToR floods probes that advertise
 * the utilization of the best path back to it; each switch keeps, per
 * destination ToR, the best next hop and that path's utilization, and sends
 * new flowlets to the best hop. A best hop not refreshed within KEEPALIVE_US
 * is replaced by the next probe for that ToR (keep-alive).
 *
 * Probe: ethertype TYPE_HULA (0x2345), hula_t { torId: 24, minUtil: 8 }, sent
 * by the host agent of each ToR into the ToR's host port (BMv2 has no packet
 * generator); the frame is padded to 64 B and carries no IPv4 header.
 *
 * Utilization estimator, per egress port: U = D + U * (1 - dt/tau), with tau a
 * power of two (TAU_US = 2^TAU_SHIFT us >= 2 x probe period), so dt/tau is a
 * shift: U = D + U - ((U * dt) >> TAU_SHIFT); when dt >= tau, U = D. D is the
 * IPv4 length of the packet. It is updated in ingress when the forwarding
 * decision is made, which counts the same bytes as the egress would for
 * unicast traffic, and lets a probe arriving on port p read the utilization
 * of the link p carries data on (the reverse of the probe's direction).
 * The 8-bit metric is U >> UTIL_SHIFT, saturated at 255.
 *
 * Registers (MyIngress):
 *   linkUtil[MAX_PORTS]      bit<32>  U per port, bytes per tau
 *   linkTime[MAX_PORTS]      bit<32>  us of the last update of U
 *   bestHop[MAX_TORS]        bit<16>  BEST_HOP_VALID | port, per destination ToR
 *   pathUtil[MAX_TORS]       bit<8>   utilization of the best path
 *   updateTime[MAX_TORS]     bit<32>  us of the last best-hop refresh
 *   flowletHop[FLOWLET_SLOTS]  bit<16> egress port (with BEST_HOP_VALID) per flowlet slot
 *   flowletTime[FLOWLET_SLOTS] bit<32> us of the flowlet's last packet
 * Tables (MyIngress):
 *   ipv4Route  key hdr.ipv4.dstAddr: lpm   actions toHost(port, dmac), toTor(tor), drop
 *   nextHop    key meta.dstTor: exact, meta.bucket: exact   actions setEgress(port), drop
 *              (used until a probe for the ToR has been seen)
 *   probeGroup key standard_metadata.ingress_port: exact   actions setProbeGroup(group), drop
 * Counters: MyEgress.portTx[MAX_PORTS]. Multicast: one group per ingress port,
 * HULA's up/down rule, chosen by the control plane.
 *
 * Configured by src-main/core/controlplane, rendering simple_switch_CLI.
 * Checked against p4c p4include/v1model.p4 (p4lang/p4c a8f50441, and the
 * mark_to_drop(standard_metadata) form the p4c 1.2.5.16 fixture compiles with).
 * BMv2 timestamps are in microseconds.
 */
#include <core.p4>
#include <v1model.p4>
// The constants of the shared includes this program uses (the others stay undeclared, so p4c
// has none to warn about as unused).
#define P4LAB_HULA
#include "../../include/headers.p4"
#ifdef P4LAB_INT
#include "../../include/int.p4"
#endif

/* ---- constants ---- */
const bit<32> MAX_PORTS      = 512;
const bit<32> MAX_TORS       = 1024;
const bit<32> FLOWLET_SLOTS  = 4096;
const bit<16> NH_BUCKETS     = 16;
const int     ROUTE_SIZE     = 1024;
const int     NEXTHOP_SIZE   = 16384;
const bit<32> FLOWLET_GAP_US = 100;   // HULA's flowlet gap
const bit<32> KEEPALIVE_US   = 1000;  // T_fail: 5 probe periods of 200 us
const bit<8>  TAU_SHIFT      = 9;
const bit<32> TAU_US         = 512;   // 2^TAU_SHIFT
const bit<8>  UTIL_SHIFT     = 8;
const bit<16> BEST_HOP_VALID = 0x8000;

/* ---- headers ---- */
struct headers_t {
    ethernet_t ethernet;
    hula_t     hula;
    ipv4_t     ipv4;
    tcp_t      tcp;
    udp_t      udp;
#ifdef P4LAB_INT
    int_report_headers_t intReport;
#endif
}

/* ---- metadata ---- */
struct metadata_t {
    bit<16> dstTor;
    bit<8>  bucket;
    bit<16> l4Src;
    bit<16> l4Dst;
    bit<32> now;
    bit<32> utilPort;
    bit<32> utilBytes;
    bit<8>  util;
#ifdef P4LAB_INT
    P4LAB_INT_METADATA
#endif
}

/* ---- parser ---- */
parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            TYPE_IPV4: parse_ipv4;
            TYPE_HULA: parse_hula;
            default: accept;
        }
    }
    state parse_hula {
        pkt.extract(hdr.hula);
        transition accept;
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
        transition accept;
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        transition accept;
    }
}

/* ---- checksum verification ---- */
control MyVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

/* ---- ingress ---- */
control MyIngress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    register<bit<32>>(MAX_PORTS) linkUtil;
    register<bit<32>>(MAX_PORTS) linkTime;
    register<bit<16>>(MAX_TORS) bestHop;
    register<bit<8>>(MAX_TORS) pathUtil;
    register<bit<32>>(MAX_TORS) updateTime;
    register<bit<16>>(FLOWLET_SLOTS) flowletHop;
    register<bit<32>>(FLOWLET_SLOTS) flowletTime;

    action drop() {
        mark_to_drop(standard_metadata);
    }
    action toHost(bit<9> port, bit<48> dmac) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.dstAddr = dmac;
    }
    action toTor(bit<16> tor) {
        meta.dstTor = tor;
    }
    action setEgress(bit<9> port) {
        standard_metadata.egress_spec = port;
    }
    action setProbeGroup(bit<16> group) {
        standard_metadata.mcast_grp = group;
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
    table probeGroup {
        key = { standard_metadata.ingress_port: exact; }
        actions = { setProbeGroup; drop; }
        default_action = drop();
        size = MAX_PORTS;
    }

    apply {
        meta.now = (bit<32>)standard_metadata.ingress_global_timestamp;
        if (hdr.hula.isValid()) {
            // A probe reads the utilization of the link it arrived on.
            meta.utilPort = (bit<32>)standard_metadata.ingress_port;
            meta.utilBytes = 0;
        } else if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
            switch (ipv4Route.apply().action_run) {
                toTor: {
                    if (hdr.tcp.isValid()) {
                        meta.l4Src = hdr.tcp.srcPort;
                        meta.l4Dst = hdr.tcp.dstPort;
                    } else if (hdr.udp.isValid()) {
                        meta.l4Src = hdr.udp.srcPort;
                        meta.l4Dst = hdr.udp.dstPort;
                    }
                    bit<32> slot;
                    hash(slot, HashAlgorithm.crc32, (bit<32>)0,
                         { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol, meta.l4Src, meta.l4Dst },
                         FLOWLET_SLOTS);
                    bit<32> last;
                    bit<16> hop;
                    bit<16> best;
                    flowletTime.read(last, slot);
                    flowletHop.read(hop, slot);
                    bestHop.read(best, (bit<32>)meta.dstTor);
                    if (meta.now - last > FLOWLET_GAP_US) {
                        hop = best;  // a new flowlet takes the current best hop
                    }
                    flowletTime.write(slot, meta.now);
                    flowletHop.write(slot, hop);
                    if ((hop & BEST_HOP_VALID) != 0) {
                        standard_metadata.egress_spec = (bit<9>)hop;
                    } else {
                        hash(meta.bucket, HashAlgorithm.crc16, (bit<8>)0,
                             { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol, meta.l4Src, meta.l4Dst },
                             NH_BUCKETS);
                        nextHop.apply();
                    }
                }
            }
            meta.utilPort = (bit<32>)standard_metadata.egress_spec;
            meta.utilBytes = (bit<32>)hdr.ipv4.totalLen;
        } else {
            drop();
            return;
        }

        // Utilization estimator of port meta.utilPort.
        bit<32> u;
        bit<32> t;
        linkUtil.read(u, meta.utilPort);
        linkTime.read(t, meta.utilPort);
        bit<32> dt = meta.now - t;
        if (dt >= TAU_US) {
            u = meta.utilBytes;
        } else {
            u = meta.utilBytes + u - ((u * dt) >> TAU_SHIFT);
        }
        linkUtil.write(meta.utilPort, u);
        linkTime.write(meta.utilPort, meta.now);
        bit<32> scaled = u >> UTIL_SHIFT;
        meta.util = scaled > 255 ? 8w255 : (bit<8>)scaled;

        if (hdr.hula.isValid()) {
            bit<32> tor = (bit<32>)hdr.hula.torId;
            bit<8> probeUtil = hdr.hula.minUtil > meta.util ? hdr.hula.minUtil : meta.util;
            bit<16> inHop = BEST_HOP_VALID | (bit<16>)standard_metadata.ingress_port;
            bit<16> best;
            bit<8> bestUtil;
            bit<32> refreshed;
            bestHop.read(best, tor);
            pathUtil.read(bestUtil, tor);
            updateTime.read(refreshed, tor);
            // A better path, news from the current best hop, or a stale best hop.
            if ((best & BEST_HOP_VALID) == 0 || probeUtil < bestUtil || best == inHop
                    || meta.now - refreshed > KEEPALIVE_US) {
                bestHop.write(tor, inHop);
                pathUtil.write(tor, probeUtil);
                updateTime.write(tor, meta.now);
                bestUtil = probeUtil;
            }
            hdr.hula.minUtil = bestUtil;
            probeGroup.apply();
        }
    }
}

/* ---- egress ---- */
control MyEgress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    counter(MAX_PORTS, CounterType.packets_and_bytes) portTx;
#ifdef P4LAB_INT
#include "../../include/int_egress.p4"
#endif
    apply {
#ifdef P4LAB_INT
        if (standard_metadata.instance_type == INT_INSTANCE_EGRESS_CLONE) {
            intReport.apply();
            return;
        }
#endif
        portTx.count((bit<32>)standard_metadata.egress_port);
#ifdef P4LAB_INT
        if (standard_metadata.instance_type == INT_INSTANCE_NORMAL && hdr.ipv4.isValid()) {
            intWatch.apply();
        }
#endif
    }
}

/* ---- checksum computation ---- */
control MyComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
#ifdef P4LAB_INT
        update_checksum(hdr.intReport.ipv4.isValid(),
            { hdr.intReport.ipv4.version, hdr.intReport.ipv4.ihl, hdr.intReport.ipv4.diffserv, hdr.intReport.ipv4.totalLen,
              hdr.intReport.ipv4.identification, hdr.intReport.ipv4.flags, hdr.intReport.ipv4.fragOffset, hdr.intReport.ipv4.ttl,
              hdr.intReport.ipv4.protocol, hdr.intReport.ipv4.srcAddr, hdr.intReport.ipv4.dstAddr },
            hdr.intReport.ipv4.hdrChecksum, HashAlgorithm.csum16);
#endif
    }
}

/* ---- deparser ---- */
control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
#ifdef P4LAB_INT
        pkt.emit(hdr.intReport);
#endif
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.hula);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.tcp);
        pkt.emit(hdr.udp);
    }
}

/* ---- switch ---- */
V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(), MyDeparser()) main;
