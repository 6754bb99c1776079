/* DHLB for BMv2 simple_switch (v1model).
 *
 * Algorithm (the DHLB paper): ToRs send INT-like probes up; each switch maps the
 * utilization of the link a probe arrived on to a load degree (0-25% -> 5,
 * 25-50% -> 3, 50-70% -> 2, 70-90% -> 1, above 90% -> 0), keeps the smallest
 * degree along the path, and records it per (origin ToR, path slot). New
 * flowlets pick a path slot with probability proportional to its degree.
 *
 * Probe: ethertype TYPE_DHLB (0x2347), dhlb_t { originTor: 16, minDegree: 8,
 * hopCount: 8 } then hopCount (<= DHLB_MAX_HOPS = 4) dhlb_hop_t { switchId: 16,
 * ingressPort: 16, egressPort: 16, loadDegree: 8 }. Sent by the host agent of
 * each ToR (minDegree 5, hopCount 0) into the ToR's host port. Each switch
 * appends a record while there is room; MyEgress fills in egressPort per copy.
 *
 * Utilization estimator: as in hula.p4, U = D + U - ((U * dt) >> TAU_SHIFT),
 * per port, updated in ingress; meta.util = U >> 8 saturated at 0xFFFF; the
 * control plane writes loadDegree's ranges from each link's speed and tau.
 * Proportional split: the lookup table weightedPick, keyed by the four path
 * degrees and a random number 0..15, holds the slot to use (precomputed by
 * the control plane); no keep-alive (a dead path keeps its degree until the
 * control plane clears it).
 *
 * Registers (MyIngress):
 *   linkUtil[MAX_PORTS] bit<32>, linkTime[MAX_PORTS] bit<32>   estimator state
 *   pathDegree0..pathDegree3[MAX_TORS] bit<8>  min degree via path slot 0..3
 *   flowletSlot[FLOWLET_SLOTS] bit<8>   path slot per flowlet (SLOT_NONE: nextHop)
 *   flowletTime[FLOWLET_SLOTS] bit<32>  us of the flowlet's last packet
 * Tables (MyIngress):
 *   switchInfo (keyless)  actions setSwitchId(id)
 *   ipv4Route  key hdr.ipv4.dstAddr: lpm   actions toHost(port, dmac), toTor(tor), drop
 *   nextHop    key meta.dstTor: exact, meta.bucket: exact   actions setEgress(port), drop
 *   probeGroup key standard_metadata.ingress_port: exact   actions setProbeGroup(group), drop
 *   portSlot   key standard_metadata.ingress_port: exact   actions setSlot(slot), NoAction
 *   loadDegree key standard_metadata.ingress_port: exact, meta.util: range
 *              actions setDegree(degree)  (ranges from that port's link rate)
 *   weightedPick key meta.degree0..meta.degree3: exact, meta.pickRand: exact  actions pickSlot(slot), NoAction
 *   slotPort   key meta.slot: exact   actions setEgress(port), drop
 * Counters: MyEgress.portTx[MAX_PORTS]. Multicast: one group per ingress port
 * with DHLB's replication rule, chosen by the control plane.
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
#define P4LAB_DHLB
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
const int     PICK_SIZE      = 16384;
const int     LOAD_DEGREE_SIZE = 2048;  // MAX_PORTS x 4 utilization bands
const bit<32> FLOWLET_GAP_US = 100;
const bit<8>  TAU_SHIFT      = 9;
const bit<32> TAU_US         = 512;   // 2^TAU_SHIFT
const bit<8>  UTIL_SHIFT     = 8;
const bit<8>  SLOT_NONE      = 0xFF;
const bit<8>  MAX_DEGREE     = 5;

/* ---- headers ---- */
struct headers_t {
    ethernet_t ethernet;
    dhlb_t     dhlb;
    dhlb_hop_t hop0;
    dhlb_hop_t hop1;
    dhlb_hop_t hop2;
    dhlb_hop_t hop3;
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
    bit<16> switchId;
    bit<32> utilPort;
    bit<32> utilBytes;
    bit<16> util;
    bit<8>  degree;
    bit<8>  slot;
    bit<8>  degree0;
    bit<8>  degree1;
    bit<8>  degree2;
    bit<8>  degree3;
    bit<8>  pickRand;
    bit<8>  hopIndex;  // record this switch appended, for MyEgress; DHLB_MAX_HOPS if none
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
            TYPE_DHLB: parse_dhlb;
            default: accept;
        }
    }
    state parse_dhlb {
        pkt.extract(hdr.dhlb);
        transition select(hdr.dhlb.hopCount) {
            0: accept;
            default: parse_hop0;
        }
    }
    state parse_hop0 {
        pkt.extract(hdr.hop0);
        transition select(hdr.dhlb.hopCount) {
            1: accept;
            default: parse_hop1;
        }
    }
    state parse_hop1 {
        pkt.extract(hdr.hop1);
        transition select(hdr.dhlb.hopCount) {
            2: accept;
            default: parse_hop2;
        }
    }
    state parse_hop2 {
        pkt.extract(hdr.hop2);
        transition select(hdr.dhlb.hopCount) {
            3: accept;
            default: parse_hop3;
        }
    }
    state parse_hop3 {
        pkt.extract(hdr.hop3);
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
    register<bit<8>>(MAX_TORS) pathDegree0;
    register<bit<8>>(MAX_TORS) pathDegree1;
    register<bit<8>>(MAX_TORS) pathDegree2;
    register<bit<8>>(MAX_TORS) pathDegree3;
    register<bit<8>>(FLOWLET_SLOTS) flowletSlot;
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
    action setSwitchId(bit<16> id) {
        meta.switchId = id;
    }

    table switchInfo {
        actions = { setSwitchId; }
        default_action = setSwitchId(0);
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
    action setProbeGroup(bit<16> group) {
        standard_metadata.mcast_grp = group;
    }
    action setSlot(bit<8> slot) {
        meta.slot = slot;
    }
    action setDegree(bit<8> degree) {
        meta.degree = degree;
    }
    action pickSlot(bit<8> slot) {
        meta.slot = slot;
    }

    table probeGroup {
        key = { standard_metadata.ingress_port: exact; }
        actions = { setProbeGroup; drop; }
        default_action = drop();
        size = MAX_PORTS;
    }
    table portSlot {
        key = { standard_metadata.ingress_port: exact; }
        actions = { setSlot; NoAction; }
        default_action = NoAction();
        size = MAX_PORTS;
    }
    table loadDegree {
        key = { standard_metadata.ingress_port: exact; meta.util: range; }
        actions = { setDegree; }
        default_action = setDegree(0);
        size = LOAD_DEGREE_SIZE;
    }
    table weightedPick {
        key = {
            meta.degree0: exact;
            meta.degree1: exact;
            meta.degree2: exact;
            meta.degree3: exact;
            meta.pickRand: exact;
        }
        actions = { pickSlot; NoAction; }
        default_action = NoAction();
        size = PICK_SIZE;
    }
    table slotPort {
        key = { meta.slot: exact; }
        actions = { setEgress; drop; }
        default_action = drop();
        size = 4;
    }

    apply {
        meta.now = (bit<32>)standard_metadata.ingress_global_timestamp;
        meta.slot = SLOT_NONE;
        meta.hopIndex = DHLB_MAX_HOPS;
        switchInfo.apply();
        if (hdr.dhlb.isValid()) {
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
                    bit<32> fslot;
                    hash(fslot, HashAlgorithm.crc32, (bit<32>)0,
                         { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol, meta.l4Src, meta.l4Dst },
                         FLOWLET_SLOTS);
                    bit<32> last;
                    flowletTime.read(last, fslot);
                    flowletSlot.read(meta.slot, fslot);
                    if (meta.now - last > FLOWLET_GAP_US) {
                        bit<32> tor = (bit<32>)meta.dstTor;
                        pathDegree0.read(meta.degree0, tor);
                        pathDegree1.read(meta.degree1, tor);
                        pathDegree2.read(meta.degree2, tor);
                        pathDegree3.read(meta.degree3, tor);
                        random(meta.pickRand, (bit<8>)0, (bit<8>)15);
                        meta.slot = SLOT_NONE;
                        weightedPick.apply();
                    }
                    flowletTime.write(fslot, meta.now);
                    flowletSlot.write(fslot, meta.slot);
                    if (meta.slot != SLOT_NONE) {
                        slotPort.apply();
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

        // Utilization estimator of port meta.utilPort (see hula.p4).
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
        meta.util = scaled > 0xFFFF ? 16w0xFFFF : (bit<16>)scaled;

        if (hdr.dhlb.isValid()) {
            // The origin's own host link is not on the path: hopCount 0 keeps minDegree.
            meta.degree = MAX_DEGREE;
            if (hdr.dhlb.hopCount > 0) {
                loadDegree.apply();
            }
            if (meta.degree < hdr.dhlb.minDegree) {
                hdr.dhlb.minDegree = meta.degree;
            }
            if (portSlot.apply().hit) {
                bit<32> origin = (bit<32>)hdr.dhlb.originTor;
                if (meta.slot == 0) { pathDegree0.write(origin, hdr.dhlb.minDegree); }
                else if (meta.slot == 1) { pathDegree1.write(origin, hdr.dhlb.minDegree); }
                else if (meta.slot == 2) { pathDegree2.write(origin, hdr.dhlb.minDegree); }
                else if (meta.slot == 3) { pathDegree3.write(origin, hdr.dhlb.minDegree); }
            }
            meta.hopIndex = hdr.dhlb.hopCount;
            dhlb_hop_t rec;
            rec.setValid();
            rec.switchId = meta.switchId;
            rec.ingressPort = (bit<16>)standard_metadata.ingress_port;
            rec.egressPort = 0;
            rec.loadDegree = meta.degree;
            if (hdr.dhlb.hopCount == 0) { hdr.hop0 = rec; }
            else if (hdr.dhlb.hopCount == 1) { hdr.hop1 = rec; }
            else if (hdr.dhlb.hopCount == 2) { hdr.hop2 = rec; }
            else if (hdr.dhlb.hopCount == 3) { hdr.hop3 = rec; }
            if (hdr.dhlb.hopCount < DHLB_MAX_HOPS) {
                hdr.dhlb.hopCount = hdr.dhlb.hopCount + 1;
            }
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
        if (hdr.dhlb.isValid()) {
            bit<16> port = (bit<16>)standard_metadata.egress_port;
            if (meta.hopIndex == 0) { hdr.hop0.egressPort = port; }
            else if (meta.hopIndex == 1) { hdr.hop1.egressPort = port; }
            else if (meta.hopIndex == 2) { hdr.hop2.egressPort = port; }
            else if (meta.hopIndex == 3) { hdr.hop3.egressPort = port; }
        }
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
        pkt.emit(hdr.dhlb);
        pkt.emit(hdr.hop0);
        pkt.emit(hdr.hop1);
        pkt.emit(hdr.hop2);
        pkt.emit(hdr.hop3);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.tcp);
        pkt.emit(hdr.udp);
    }
}

/* ---- switch ---- */
V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(), MyDeparser()) main;
