/* CONGA for Tofino 1 (TNA), leaf-spine.
 *
 * Algorithm (Alizadeh et al., SIGCOMM'14), as in ../v1model/conga.p4: the source leaf sends each
 * new flowlet on the uplink (LBTag) with the least congestion to the destination leaf; CE is
 * the max DRE metric along the path; the destination leaf stores CE per (source leaf, LBTag)
 * and piggy-backs it, round-robin, on traffic going back (FB_LBTag, FB_Metric).
 *
 * Overlay: ethertype TYPE_CONGA (0x2346), conga_t { srcLeaf: 16, lbTag: 4, ce: 3, fbLbTag: 4,
 * fbMetric: 3, fbValid: 1, reserved: 1, etherType: 16 } before the inner IPv4; added by the
 * source leaf, removed by the destination leaf. No probes, no pktgen, no multicast.
 *
 * Registers (MyIngress):
 *   dre[MAX_PORTS]             util_window_t {epoch, bytes}  bytes in the current 2^18 ns
 *                              window; leaves index it by LBTag, spines by egress port
 *   congToLeafBest[MAX_LEAVES] best_tag_t {metric, tag}  per destination leaf: the LBTag with
 *                              the least fed-back metric, and that metric
 *   congFromLeaf[CONGA_TABLE]  bit<8>  CE from (srcLeaf << 4 | LBTag), to feed back
 *   fbPointer[MAX_LEAVES]      bit<8>  next LBTag to feed back to each leaf
 *   flowletTag[FLOWLET_SLOTS]  bit<8>  LBTag per flowlet slot
 *   flowletTime[FLOWLET_SLOTS] bit<32> time of the slot's last packet, ns >> 10
 * Tables (MyIngress):
 *   switchInfo (keyless)  setSwitchId(id, uplinks)
 *   ipv4Route  key hdr.ipv4.dstAddr: lpm   actions toHost(port, dmac), toTor(tor), drop
 *   nextHop    key meta.dstTor, meta.bucket: exact   actions setEgress(port), drop (spines)
 *   uplinkPort key meta.lbTag: exact   actions setUplink(port), drop  (at most CONGA_MAX_UPLINKS = 16)
 * Counters: MyEgress.portTx[MAX_PORTS].
 *
 * Differences from ../v1model/conga.p4, and why:
 * - Path choice: Tofino cannot read four DREs and four remote metrics of one register per
 *   packet, so the per-(leaf, tag) table congToLeaf is replaced by congToLeafBest, kept by the
 *   feedback in one RegisterAction: feedback for the current best tag refreshes its metric
 *   (it may worsen); feedback for another tag with a metric <= the best's takes over. A new
 *   flowlet takes the best tag. The local DRE is not compared at decision time (it is
 *   already in the fed-back CE, which includes the source uplink, but older). Ties rotate
 *   with the round-robin feedback instead of keeping the cached tag.
 * - DRE: a tumbling window of bytes per 2^18 ns (~ tau = T_dre / alpha = 262 us), no multiply;
 *   metric = bytes >> DRE_SHIFT (128 KB per level: a 40G link at full rate is level 10,
 *   saturated at 7 from ~70 %; set DRE_SHIFT for other link speeds).
 * - Time: ns. Queue depth is not used (CONGA's DRE counts bytes, visible in ingress).
 *
 * Configured by src-main/core/controlplane, rendering bfrt_python (bfrt.conga.pipe.MyIngress...).
 * Checked against p4lang/p4c backends/tofino/bf-p4c/p4include: tna.p4 at f155d030,
 * tofino1_arch.p4 at 2f382d16 (TNA 2.0.1), tofino1_base.p4 at 4d9bc819, tofino1_specs.p4 at
 * 2ec8e737; Open-Tofino 8eb52a6e tna_register (pair registers); bf-p4c p4-tests stateful7.p4.
 */
#include <core.p4>
#include <tna.p4>
// The constants of the shared includes this program uses (the others stay undeclared, so p4c
// has none to warn about as unused).
#define P4LAB_CONGA
#include "../../include/headers.p4"
#include "../../include/tna_common.p4"

/* ---- constants ---- */
const bit<32> MAX_PORTS     = 512;
const bit<32> MAX_LEAVES    = 256;
const bit<32> CONGA_TABLE   = 4096;   // MAX_LEAVES x 16 LBTags
const bit<32> FLOWLET_SLOTS = 4096;
const bit<8>  BUCKET_MASK   = 0x0F;
const int     ROUTE_SIZE    = 1024;
const int     NEXTHOP_SIZE  = 16384;
const bit<32> FLOWLET_GAP   = 98;     // 100 us in ns >> 10 units
const bit<8>  DRE_SHIFT     = 17;
// Uplinks (LBTags) a leaf may have: LBTag is 4 bits, and congFromLeaf / feedback index by
// (leaf << 4 | LBTag). The renderer refuses leaves with more (src-main/schemes/conga/controlplane.ts).
const int     CONGA_MAX_UPLINKS = 16;

/* ---- headers ---- */
struct headers_t {
    ethernet_t ethernet;
    conga_t    conga;
    ipv4_t     ipv4;
    tcp_t      tcp;
    udp_t      udp;
}

/* ---- metadata ---- */
struct best_tag_t {
    bit<16> metric;
    bit<16> tag;
}

struct ig_metadata_t {
    bit<16> dstTor;
    bit<8>  bucket;
    bit<16> l4Src;
    bit<16> l4Dst;
    bit<32> now;
    bit<32> dreEpoch;
    bit<16> switchId;
    bit<8>  uplinks;
    bit<8>  lbTag;
    bit<8>  bestTag;
    bit<16> fbTag;
    bit<16> fbMetric;
    bit<8>  ce;
    bit<32> dreBytes;
    PortId_t dreIndex;
}

struct eg_metadata_t { }

/* ---- parsers ---- */
parser IngressParser(packet_in pkt, out headers_t hdr, out ig_metadata_t meta,
                     out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        // Every field of meta, so none is read undefined (and p4c has no out parameter to warn
        // about as possibly uninitialized); the L4 ports are set again by parse_tcp / parse_udp.
        meta.dstTor = 0;
        meta.bucket = 0;
        meta.l4Src = 0;
        meta.l4Dst = 0;
        meta.now = 0;
        meta.dreEpoch = 0;
        meta.switchId = 0;
        meta.uplinks = 0;
        meta.lbTag = 0;
        meta.bestTag = 0;
        meta.fbTag = 0;
        meta.fbMetric = 0;
        meta.ce = 0;
        meta.dreBytes = 0;
        meta.dreIndex = 0;
        transition parse_ethernet;
    }
    state parse_ethernet {
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

/* ---- ingress ---- */
control MyIngress(inout headers_t hdr, inout ig_metadata_t meta,
                  in ingress_intrinsic_metadata_t ig_intr_md,
                  in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                  inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                  inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    Hash<bit<8>>(HashAlgorithm_t.CRC16) bucketHash;
    Hash<bit<12>>(HashAlgorithm_t.CRC32) flowletHash;

    Register<util_window_t, PortId_t>(MAX_PORTS) dre;
    Register<best_tag_t, bit<8>>(MAX_LEAVES) congToLeafBest;
    Register<bit<8>, bit<12>>(CONGA_TABLE) congFromLeaf;
    Register<bit<8>, bit<8>>(MAX_LEAVES) fbPointer;
    Register<bit<8>, bit<12>>(FLOWLET_SLOTS) flowletTag;
    Register<bit<32>, bit<12>>(FLOWLET_SLOTS) flowletTime;

    RegisterAction<util_window_t, PortId_t, bit<32>>(dre) accountDre = {
        void apply(inout util_window_t value, out bit<32> rv) {
            if (value.epoch == meta.dreEpoch) {
                value.bytes = value.bytes + (bit<32>)hdr.ipv4.totalLen;
            } else {
                value.bytes = (bit<32>)hdr.ipv4.totalLen;
            }
            value.epoch = meta.dreEpoch;
            rv = value.bytes;
        }
    };
    RegisterAction<best_tag_t, bit<8>, bit<16>>(congToLeafBest) readBestTag = {
        void apply(inout best_tag_t value, out bit<16> rv) {
            rv = value.tag;
        }
    };
    // Feedback about the best tag refreshes it; another tag at least as good replaces it.
    RegisterAction<best_tag_t, bit<8>, bit<16>>(congToLeafBest) learnFeedback = {
        void apply(inout best_tag_t value) {
            if (value.tag == meta.fbTag || value.metric >= meta.fbMetric) {
                value.metric = meta.fbMetric;
                value.tag = meta.fbTag;
            }
        }
    };
    RegisterAction<bit<8>, bit<12>, bit<8>>(congFromLeaf) storeCe = {
        void apply(inout bit<8> value) {
            value = (bit<8>)hdr.conga.ce;
        }
    };
    RegisterAction<bit<8>, bit<12>, bit<8>>(congFromLeaf) readCe = {
        void apply(inout bit<8> value, out bit<8> rv) {
            rv = value;
        }
    };
    RegisterAction<bit<8>, bit<8>, bit<8>>(fbPointer) nextFeedback = {
        void apply(inout bit<8> value, out bit<8> rv) {
            if (value + 1 >= meta.uplinks) {
                value = 0;
            } else {
                value = value + 1;
            }
            rv = value;
        }
    };
    RegisterAction<bit<32>, bit<12>, bit<8>>(flowletTime) touchFlowlet = {
        void apply(inout bit<32> value, out bit<8> rv) {
            rv = 0;
            if (meta.now - value > FLOWLET_GAP) {
                rv = 1;
            }
            value = meta.now;
        }
    };
    RegisterAction<bit<8>, bit<12>, bit<8>>(flowletTag) startFlowlet = {
        void apply(inout bit<8> value, out bit<8> rv) {
            value = meta.bestTag;
            rv = value;
        }
    };
    RegisterAction<bit<8>, bit<12>, bit<8>>(flowletTag) keepFlowlet = {
        void apply(inout bit<8> value, out bit<8> rv) {
            rv = value;
        }
    };

    action drop() {
        ig_dprsr_md.drop_ctl = 1;
    }
    action setSwitchId(bit<16> id, bit<8> uplinks) {
        meta.switchId = id;
        meta.uplinks = uplinks;
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
    action setUplink(bit<9> port) {
        ig_tm_md.ucast_egress_port = port;
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
        } else {
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
            meta.now = ig_prsr_md.global_tstamp[41:10];
            meta.dreEpoch = (bit<32>)ig_prsr_md.global_tstamp[47:18];  // 2^18 ns windows
            switchInfo.apply();
            bool measure = false;
            switch (ipv4Route.apply().action_run) {
                toHost: {
                    if (hdr.conga.isValid()) {
                        // Destination leaf: remember CE, learn the feedback, strip the overlay.
                        storeCe.execute(hdr.conga.srcLeaf[7:0] ++ hdr.conga.lbTag);
                        if (hdr.conga.fbValid == 1) {
                            meta.fbTag = (bit<16>)hdr.conga.fbLbTag;
                            meta.fbMetric = (bit<16>)hdr.conga.fbMetric;
                            learnFeedback.execute(hdr.conga.srcLeaf[7:0]);
                        }
                        hdr.ethernet.etherType = hdr.conga.etherType;
                        hdr.conga.setInvalid();
                    }
                }
                toTor: {
                    measure = true;
                    if (hdr.conga.isValid()) {
                        // Spine: one path per leaf; the DRE is per egress port.
                        meta.bucket = bucketHash.get({ hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol,
                                                       meta.l4Src, meta.l4Dst }) & BUCKET_MASK;
                        nextHop.apply();
                        meta.dreIndex = ig_tm_md.ucast_egress_port;
                    } else {
                        // Source leaf: a new flowlet takes the best tag to the destination leaf.
                        bit<16> best = readBestTag.execute(meta.dstTor[7:0]);
                        meta.bestTag = best[7:0];
                        if (meta.bestTag >= meta.uplinks) {
                            meta.bestTag = 0;
                        }
                        bit<12> slot = flowletHash.get({ hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol,
                                                         meta.l4Src, meta.l4Dst });
                        bit<8> fresh = touchFlowlet.execute(slot);
                        if (fresh == 1) {
                            meta.lbTag = startFlowlet.execute(slot);
                        } else {
                            meta.lbTag = keepFlowlet.execute(slot);
                        }
                        uplinkPort.apply();
                        meta.dreIndex = (PortId_t)meta.lbTag;

                        // Feedback for the destination leaf, round-robin over its LBTags.
                        bit<8> fb = nextFeedback.execute(meta.dstTor[7:0]);
                        bit<8> fbMetric = readCe.execute(meta.dstTor[7:0] ++ fb[3:0]);

                        hdr.conga.setValid();
                        hdr.conga.srcLeaf = meta.switchId;
                        hdr.conga.lbTag = meta.lbTag[3:0];
                        hdr.conga.ce = 0;
                        hdr.conga.fbLbTag = fb[3:0];
                        hdr.conga.fbMetric = fbMetric[2:0];
                        hdr.conga.fbValid = 1;
                        hdr.conga.reserved = 0;
                        hdr.conga.etherType = hdr.ethernet.etherType;
                        hdr.ethernet.etherType = TYPE_CONGA;
                    }
                }
            }
            // DRE of the chosen uplink or spine port; CE = max along the path. Both branches that
            // set measure leave hdr.conga valid; the check says so where the compiler can see it
            // (it cannot follow measure), so no path can read CE from an invalid header.
            if (measure) {
                meta.dreBytes = accountDre.execute(meta.dreIndex);
                bit<32> level = meta.dreBytes >> DRE_SHIFT;
                if (level > 7) {
                    level = 7;
                }
                if (hdr.conga.isValid()) {
                    if (level[2:0] > hdr.conga.ce) {
                        hdr.conga.ce = level[2:0];
                    }
                }
            }
        }
    }
}

/* ---- ingress deparser ---- */
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

/* ---- egress parser ---- */
parser EgressParser(packet_in pkt, out headers_t hdr, out eg_metadata_t meta,
                    out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        transition accept;
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

/* ---- egress deparser ---- */
control EgressDeparser(packet_out pkt, inout headers_t hdr, in eg_metadata_t meta,
                       in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply {
        pkt.emit(hdr);
    }
}

/* ---- switch ---- */
Pipeline(IngressParser(), MyIngress(), IngressDeparser(), EgressParser(), MyEgress(), EgressDeparser()) pipe;
Switch(pipe) main;
