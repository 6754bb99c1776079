/* CONGA for BMv2 simple_switch (v1model), leaf-spine.
 *
 * Algorithm (Alizadeh et al., SIGCOMM'14): the source leaf sends each new
 * flowlet on the uplink (LBTag) that minimizes max(local DRE, remote metric to
 * the destination leaf); the path's congestion (CE) is the max DRE metric
 * along it; the destination leaf stores CE per (source leaf, LBTag) and
 * piggy-backs it, round-robin, on traffic going back (FB_LBTag, FB_Metric).
 *
 * Overlay: ethertype TYPE_CONGA (0x2346) then conga_t { srcLeaf: 16, lbTag: 4,
 * ce: 3, fbLbTag: 4, fbMetric: 3, fbValid: 1, reserved: 1, etherType: 16 },
 * then the inner IPv4. Added by the source leaf, removed by the destination leaf.
 *
 * DRE: X = D + X * (1 - dt/tau) with tau = T_dre/alpha = 2^TAU_SHIFT us
 * (T_dre = 50 us, alpha = 0.2), the division by tau being a shift; metric =
 * X >> DRE_SHIFT saturated at 7 (DRE_SHIFT = 12: 4 KB per level, 8 levels over
 * the 32 KB a 1 Gb/s BMv2 link carries in tau). Leaves index the DRE by LBTag
 * (their uplinks), spines by egress port. Differences from the paper: ties
 * go to the lowest LBTag when the cached one is not among them (the paper
 * picks at random); feedback is plain round-robin over LBTags (no
 * changed-first); remote metrics do not age.
 *
 * Registers (MyIngress):
 *   dre[MAX_PORTS]          bit<32> DRE bytes per tau
 *   dreTime[MAX_PORTS]      bit<32> us of the last DRE update
 *   congToLeaf[CONGA_TABLE] bit<8>  metric to (dstLeaf << 4 | LBTag), from feedback
 *   congFromLeaf[CONGA_TABLE] bit<8> CE from (srcLeaf << 4 | LBTag), to feed back
 *   fbPointer[MAX_LEAVES]   bit<8>  next LBTag to feed back to each leaf
 *   flowletTag[FLOWLET_SLOTS]  bit<8>  LBTag per flowlet slot
 *   flowletTime[FLOWLET_SLOTS] bit<32> us of the flowlet's last packet
 * Tables (MyIngress):
 *   switchInfo (keyless)  actions setSwitchId(id, uplinks)
 *   ipv4Route  key hdr.ipv4.dstAddr: lpm   actions toHost(port, dmac), toTor(tor), drop
 *   nextHop    key meta.dstTor: exact, meta.bucket: exact   actions setEgress(port), drop (spines)
 *   uplinkPort key meta.lbTag: exact   actions setUplink(port), drop  (at most CONGA_MAX_UPLINKS = 4)
 * Counters: MyEgress.portTx[MAX_PORTS]. Multicast: none.
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
#define P4LAB_CONGA
#include "../../include/headers.p4"
#ifdef P4LAB_INT
#include "../../include/int.p4"
#endif

/* ---- constants ---- */
const bit<32> MAX_PORTS      = 512;
const bit<32> MAX_LEAVES     = 256;
const bit<32> CONGA_TABLE    = 4096;  // MAX_LEAVES x 16 LBTags
const bit<32> FLOWLET_SLOTS  = 4096;
const bit<16> NH_BUCKETS     = 16;
const int     ROUTE_SIZE     = 1024;
const int     NEXTHOP_SIZE   = 16384;
const bit<32> FLOWLET_GAP_US = 100;
const bit<8>  TAU_SHIFT      = 8;
const bit<32> TAU_US         = 256;   // 2^TAU_SHIFT
const bit<8>  DRE_SHIFT      = 12;
const bit<8>  NO_METRIC      = 8;     // worse than any 3-bit metric
// Uplinks a leaf may have: a new flowlet compares the metrics of LBTags 0..3 (m0..m3 below),
// so the renderer refuses leaves with more (src-main/schemes/conga/controlplane.ts). ../tna/conga.p4 allows 16.
const int     CONGA_MAX_UPLINKS = 4;

/* ---- headers ---- */
struct headers_t {
    ethernet_t ethernet;
    conga_t    conga;
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
    bit<8>  uplinks;
    bit<8>  lbTag;
    bit<32> dreIndex;
#ifdef P4LAB_INT
    P4LAB_INT_METADATA
#endif
}

// The path metric through one uplink: max(local DRE metric, remote metric).
bit<8> pathMetric(in bit<32> dreBytes, in bit<8> remote) {
    bit<32> q = dreBytes >> DRE_SHIFT;
    bit<8> localMetric = q > 7 ? 8w7 : (bit<8>)q;
    return localMetric > remote ? localMetric : remote;
}

/* ---- parser ---- */
parser MyParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            TYPE_IPV4: parse_ipv4;
            TYPE_CONGA: parse_conga;
            default: accept;
        }
    }
    state parse_conga {
        pkt.extract(hdr.conga);
        transition select(hdr.conga.etherType) {
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
    register<bit<32>>(MAX_PORTS) dre;
    register<bit<32>>(MAX_PORTS) dreTime;
    register<bit<8>>(CONGA_TABLE) congToLeaf;
    register<bit<8>>(CONGA_TABLE) congFromLeaf;
    register<bit<8>>(MAX_LEAVES) fbPointer;
    register<bit<8>>(FLOWLET_SLOTS) flowletTag;
    register<bit<32>>(FLOWLET_SLOTS) flowletTime;

    action drop() {
        mark_to_drop(standard_metadata);
    }
    action setSwitchId(bit<16> id, bit<8> uplinks) {
        meta.switchId = id;
        meta.uplinks = uplinks;
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
    action setUplink(bit<9> port) {
        standard_metadata.egress_spec = port;
    }

    table switchInfo {
        actions = { setSwitchId; }
        default_action = setSwitchId(0, 0);
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
    table uplinkPort {
        key = { meta.lbTag: exact; }
        actions = { setUplink; drop; }
        default_action = drop();
        size = CONGA_MAX_UPLINKS;
    }

    apply {
        if (!hdr.ipv4.isValid() || hdr.ipv4.ttl <= 1) {
            drop();
            return;
        }
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        meta.now = (bit<32>)standard_metadata.ingress_global_timestamp;
        switchInfo.apply();
        if (hdr.tcp.isValid()) {
            meta.l4Src = hdr.tcp.srcPort;
            meta.l4Dst = hdr.tcp.dstPort;
        } else if (hdr.udp.isValid()) {
            meta.l4Src = hdr.udp.srcPort;
            meta.l4Dst = hdr.udp.dstPort;
        }
        switch (ipv4Route.apply().action_run) {
            toHost: {
                if (hdr.conga.isValid()) {
                    // Destination leaf: remember CE, take feedback, strip the overlay.
                    bit<32> fromBase = (bit<32>)hdr.conga.srcLeaf << 4;
                    congFromLeaf.write(fromBase + (bit<32>)hdr.conga.lbTag, (bit<8>)hdr.conga.ce);
                    if (hdr.conga.fbValid == 1) {
                        congToLeaf.write(fromBase + (bit<32>)hdr.conga.fbLbTag, (bit<8>)hdr.conga.fbMetric);
                    }
                    hdr.ethernet.etherType = hdr.conga.etherType;
                    hdr.conga.setInvalid();
                }
            }
            toTor: {
                if (hdr.conga.isValid()) {
                    // Spine: one path per leaf; account the DRE by egress port.
                    hash(meta.bucket, HashAlgorithm.crc16, (bit<8>)0,
                         { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol, meta.l4Src, meta.l4Dst },
                         NH_BUCKETS);
                    nextHop.apply();
                    meta.dreIndex = (bit<32>)standard_metadata.egress_spec;
                } else {
                    // Source leaf: flowlet, then the least congested uplink.
                    bit<32> slot;
                    hash(slot, HashAlgorithm.crc32, (bit<32>)0,
                         { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol, meta.l4Src, meta.l4Dst },
                         FLOWLET_SLOTS);
                    bit<32> last;
                    bit<8> tag;
                    flowletTime.read(last, slot);
                    flowletTag.read(tag, slot);
                    bit<32> toBase = (bit<32>)meta.dstTor << 4;
                    if (meta.now - last > FLOWLET_GAP_US || tag >= meta.uplinks) {
                        bit<32> d0; bit<32> d1; bit<32> d2; bit<32> d3;
                        bit<8> r0; bit<8> r1; bit<8> r2; bit<8> r3;
                        dre.read(d0, 0); dre.read(d1, 1); dre.read(d2, 2); dre.read(d3, 3);
                        congToLeaf.read(r0, toBase); congToLeaf.read(r1, toBase + 1);
                        congToLeaf.read(r2, toBase + 2); congToLeaf.read(r3, toBase + 3);
                        bit<8> m0 = pathMetric(d0, r0);
                        bit<8> m1 = pathMetric(d1, r1);
                        bit<8> m2 = pathMetric(d2, r2);
                        bit<8> m3 = pathMetric(d3, r3);
                        bit<8> bestMetric = NO_METRIC;
                        if (tag == 0 && meta.uplinks > 0) { bestMetric = m0; }
                        else if (tag == 1 && meta.uplinks > 1) { bestMetric = m1; }
                        else if (tag == 2 && meta.uplinks > 2) { bestMetric = m2; }
                        else if (tag == 3 && meta.uplinks > 3) { bestMetric = m3; }
                        if (meta.uplinks > 0 && m0 < bestMetric) { tag = 0; bestMetric = m0; }
                        if (meta.uplinks > 1 && m1 < bestMetric) { tag = 1; bestMetric = m1; }
                        if (meta.uplinks > 2 && m2 < bestMetric) { tag = 2; bestMetric = m2; }
                        if (meta.uplinks > 3 && m3 < bestMetric) { tag = 3; }
                    }
                    flowletTime.write(slot, meta.now);
                    flowletTag.write(slot, tag);
                    meta.lbTag = tag;
                    uplinkPort.apply();
                    meta.dreIndex = (bit<32>)tag;

                    // Feedback for the destination leaf, round-robin over LBTags.
                    bit<8> fb;
                    bit<8> fbMetric;
                    fbPointer.read(fb, (bit<32>)meta.dstTor);
                    fb = fb + 1 >= meta.uplinks ? 8w0 : fb + 1;
                    fbPointer.write((bit<32>)meta.dstTor, fb);
                    congFromLeaf.read(fbMetric, toBase + (bit<32>)fb);

                    hdr.conga.setValid();
                    hdr.conga.srcLeaf = meta.switchId;
                    hdr.conga.lbTag = (bit<4>)tag;
                    hdr.conga.ce = 0;
                    hdr.conga.fbLbTag = (bit<4>)fb;
                    hdr.conga.fbMetric = (bit<3>)fbMetric;
                    hdr.conga.fbValid = 1;
                    hdr.conga.reserved = 0;
                    hdr.conga.etherType = hdr.ethernet.etherType;
                    hdr.ethernet.etherType = TYPE_CONGA;
                }
                // DRE of the chosen uplink or spine port, and CE = max along the path.
                bit<32> x;
                bit<32> t;
                dre.read(x, meta.dreIndex);
                dreTime.read(t, meta.dreIndex);
                bit<32> dt = meta.now - t;
                if (dt >= TAU_US) {
                    x = (bit<32>)hdr.ipv4.totalLen;
                } else {
                    x = (bit<32>)hdr.ipv4.totalLen + x - ((x * dt) >> TAU_SHIFT);
                }
                dre.write(meta.dreIndex, x);
                dreTime.write(meta.dreIndex, meta.now);
                bit<3> metric = (bit<3>)pathMetric(x, 0);
                if (metric > hdr.conga.ce) {
                    hdr.conga.ce = metric;
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
            hdr.conga.setInvalid();
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
        pkt.emit(hdr.conga);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.tcp);
        pkt.emit(hdr.udp);
    }
}

/* ---- switch ---- */
V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(), MyDeparser()) main;
