/* LetFlow for BMv2 simple_switch (v1model).
 *
 * Algorithm (Vanini et al., "Let It Flow: Resilient Asymmetric Load Balancing
 * with Flowlet Switching", USENIX NSDI 2017): a packet to a remote ToR whose
 * flow was quiet for longer than the flowlet gap (or whose flowlet slot is
 * empty) starts a new flowlet on a uniformly random bucket of that ToR's
 * next-hop group; the rest of the flowlet reuses the bucket. No congestion
 * state and no messages: a flowlet on a slow path lasts longer, so gaps open
 * less often there and traffic drifts to the faster paths by itself.
 *
 * The flowlet keeps a bucket, not a port: nextHop resolves it on every packet,
 * so when the control plane moves a dead port's buckets to live members, the
 * flowlets on it follow at once and a new flowlet never takes a dead port.
 *
 * Flowlet slot = CRC32 of the 5-tuple (src/dst address, protocol, L4 ports;
 * 0 for non-TCP/UDP) modulo FLOWLET_SLOTS; flows that collide share a slot.
 *
 * Registers (MyIngress):
 *   flowletTime[FLOWLET_SLOTS]    bit<32>  us of the slot's last packet, with
 *                                          bit 0 set (TIME_SET); 0: empty slot
 *   flowletBucket[FLOWLET_SLOTS]  bit<8>   bucket (0..15) of the slot's flowlet
 * Tables (MyIngress):
 *   ipv4Route      key hdr.ipv4.dstAddr: lpm   actions toHost(port, dmac), toTor(tor), drop
 *   nextHop        key meta.dstTor: exact, meta.bucket: exact   actions setEgress(port), drop
 *   flowletConfig  keyless   default action setFlowletGap(gapUs) (FLOWLET_GAP_US until set)
 * Counters: MyIngress.flowletStarts[MAX_PORTS] packets, by egress port: one per
 * packet that started a flowlet. MyEgress.portTx[MAX_PORTS] packets and bytes,
 * by egress port. Multicast: none. Headers: ethernet / ipv4 / tcp | udp.
 *
 * Configured by src-main/schemes/letflow/controlplane.ts, rendering
 * simple_switch_CLI. Checked against p4c p4include/v1model.p4 (p4lang/p4c
 * a8f50441: random<T>(out T, in T lo, in T hi), register<T>, counter; and the
 * mark_to_drop(standard_metadata) form the p4c 1.2.5.16 fixture compiles with).
 * BMv2 timestamps are in microseconds.
 */
#include <core.p4>
#include <v1model.p4>
#include "../../include/headers.p4"
#ifdef P4LAB_INT
#include "../../include/int.p4"
#endif

/* ---- constants ---- */
const bit<32> MAX_PORTS      = 512;
const bit<32> FLOWLET_SLOTS  = 4096;
const bit<8>  NH_LAST_BUCKET = 15;   // buckets are 0..15
const int     ROUTE_SIZE     = 1024;
const int     NEXTHOP_SIZE   = 16384;
const bit<32> FLOWLET_GAP_US = 100;  // until the control plane sets flowletConfig
const bit<32> TIME_SET       = 1;    // or-ed into every stored time, so 0 means an empty slot

/* ---- headers ---- */
struct headers_t {
    ethernet_t ethernet;
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
    bit<32> flowletGap;
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
    register<bit<32>>(FLOWLET_SLOTS) flowletTime;
    register<bit<8>>(FLOWLET_SLOTS) flowletBucket;
    counter(MAX_PORTS, CounterType.packets) flowletStarts;

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
    action setFlowletGap(bit<32> gapUs) {
        meta.flowletGap = gapUs;
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
    table flowletConfig {
        actions = { setFlowletGap; }
        default_action = setFlowletGap(FLOWLET_GAP_US);
    }

    apply {
        if (!hdr.ipv4.isValid() || hdr.ipv4.ttl <= 1) {
            drop();
            return;
        }
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
                flowletConfig.apply();
                bit<32> slot;
                hash(slot, HashAlgorithm.crc32, (bit<32>)0,
                     { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol, meta.l4Src, meta.l4Dst },
                     FLOWLET_SLOTS);
                bit<32> now = (bit<32>)standard_metadata.ingress_global_timestamp | TIME_SET;
                bit<32> last;
                flowletTime.read(last, slot);
                bool fresh = last == 0 || now - last > meta.flowletGap;
                if (fresh) {
                    random(meta.bucket, (bit<8>)0, NH_LAST_BUCKET);
                    flowletBucket.write(slot, meta.bucket);
                } else {
                    flowletBucket.read(meta.bucket, slot);
                }
                flowletTime.write(slot, now);
                nextHop.apply();
                if (fresh) {
                    flowletStarts.count((bit<32>)standard_metadata.egress_spec);
                }
            }
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
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.tcp);
        pkt.emit(hdr.udp);
    }
}

/* ---- switch ---- */
V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(), MyDeparser()) main;
