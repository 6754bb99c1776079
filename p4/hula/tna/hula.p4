/* HULA for Tofino 1 (TNA).
 *
 * Algorithm (Katta et al., SOSR'16), as in ../v1model/hula.p4: every ToR floods probes that
 * advertise the utilization of the best path back to it; each switch keeps, per destination
 * ToR, the best next hop and that path's utilization, and sends new flowlets to the best hop.
 * A best hop not refreshed for KEEPALIVE_EPOCHS is replaced by the next probe (keep-alive).
 *
 * Probe: ethertype TYPE_HULA (0x2345), hula_t { torId: 24, minUtil: 8 }, frame padded to 64 B.
 * Probes come from the packet generator of each ToR. pktgen configuration (control plane):
 *   app id 1 (src-main/schemes/hula/controlplane.ts HULA_PKTGEN_APP), periodic timer, period T_p = 200 us, 1 batch
 *   of 1 packet, source port 68 (pipe 0); buffer = a 64 B probe frame minus its first 6 bytes
 *   (8 ignored bytes, hula_t, zero padding: 58 B); probeSource[app id] -> originateProbe(torId,
 *   uplink group).
 *
 * Registers (MyIngress):
 *   linkUtil[MAX_PORTS]       util_window_t {epoch, bytes}  bytes sent out of each port in the
 *                             current window of 2^TAU_SHIFT ns (tau = 524 us >= 2 x T_p)
 *   bestHop[MAX_TORS]         bit<16>  BEST_HOP_VALID | port per destination ToR, 0 before a probe
 *   pathUtil[MAX_TORS]        path_util_t {util, epoch}  utilization of the best path (0..255)
 *                             and the keep-alive epoch (2^16 ns units) of its last refresh
 *   flowletHop[FLOWLET_SLOTS]  bit<16> hop of each flowlet slot (0: follow nextHop)
 *   flowletTime[FLOWLET_SLOTS] bit<32> time of the slot's last packet, ns >> 10
 * Tables (MyIngress):
 *   ipv4Route   key hdr.ipv4.dstAddr: lpm            actions toHost(port, dmac), toTor(tor), drop
 *   nextHop     key meta.dstTor, meta.bucket: exact  actions setEgress(port), drop (before any probe)
 *   probeGroup  key ig_intr_md.ingress_port: exact   actions setProbeGroup(group), drop
 *   probeSource key hdr.pktgen.app_id: exact         actions originateProbe(torId, group), drop
 * Counters: MyEgress.portTx[MAX_PORTS]. Multicast: one group per ingress port with HULA's up/down
 * rule (mcast_grp_a from probeGroup, or from probeSource for generated probes).
 * Shared pieces in ../../include: tna_probe_parser.p4 (parser states), tna_probe_state.p4
 * (linkUtil, flowletTime and their RegisterActions), tna_probe_deparsers.p4.
 *
 * Differences from ../v1model/hula.p4, and why:
 * - Estimator: no multiply on Tofino, so U = D + U(1 - dt/tau) becomes a tumbling window: bytes
 *   sent in the current 2^19 ns epoch (one RegisterAction on the {epoch, bytes} pair). A probe
 *   early in an epoch sees a partial count. The Lpf extern would give a true EWMA but needs
 *   per-port LPF entries (time constants) from the control plane and is not readable by the
 *   telemetry poller, so the register stays. Metric = bytes >> UTIL_SHIFT (32 KB per level over
 *   2^19 ns: 40G at full rate is 80), saturated at 255.
 * - Probes take two passes (resubmit, see include/tna_common.p4): pass 1 reads linkUtil of the
 *   arrival port and bestHop; pass 2 updates pathUtil and bestHop and replicates.
 * - Best-hop update in one RegisterAction on pathUtil: replace when util >= key, where key is
 *   probe util + 1, or 0 when the probe comes from the best hop or there is none (so "lower
 *   util, or news from the best hop" is one comparison), or when the keep-alive epoch is stale.
 *   bestHop is then written when the returned util equals the probe's: on a tie with another
 *   hop the best hop moves to the newer probe's port (same util; v1model keeps the old one).
 * - Time: ns (global_tstamp). Queue depth (egress only) is not used: HULA's metric is link
 *   utilization, measured from bytes in ingress.
 *
 * Configured by src-main/core/controlplane, rendering bfrt_python
 * (bfrt.hula.pipe.MyIngress.<table>.add_with_<action>, bfrt.pre.node / bfrt.pre.mgid).
 * Checked against p4lang/p4c backends/tofino/bf-p4c/p4include: tna.p4 at f155d030,
 * tofino1_arch.p4 at 2f382d16 (TNA 2.0.1), tofino1_base.p4 at 4d9bc819, tofino1_specs.p4 at
 * 2ec8e737; Open-Tofino 8eb52a6e p4-examples tna_pktgen, tna_resubmit, tna_register;
 * c2c6d345 tna_meter_lpf_wred (Lpf); bf-p4c p4-tests stateful7.p4 (compare forms).
 */
#include <core.p4>
#include <tna.p4>
// The constants of the shared includes this program uses (the others stay undeclared, so p4c
// has none to warn about as unused).
#define P4LAB_HULA
#define P4LAB_TNA_PKTGEN
#define P4LAB_TNA_PROBE_PASSES
#include "../../include/headers.p4"
#include "../../include/tna_common.p4"

/* ---- constants ---- */
const bit<32> MAX_PORTS        = 512;
const bit<32> MAX_TORS         = 1024;
const bit<32> FLOWLET_SLOTS    = 4096;
const bit<8>  BUCKET_MASK      = 0x0F;  // 16 buckets per next-hop group
const int     ROUTE_SIZE       = 1024;
const int     NEXTHOP_SIZE     = 16384;
const bit<32> FLOWLET_GAP      = 98;    // 100 us in ns >> 10 units
const bit<16> KEEPALIVE_EPOCHS = 16;    // T_fail ~ 1 ms in 2^16 ns epochs
const bit<8>  UTIL_SHIFT       = 15;    // estimator bytes per metric level
const bit<16> BEST_HOP_VALID   = 0x8000;
// The probes' pktgen application is app id 1, probeSource's key: src-main/schemes/hula/controlplane.ts HULA_PKTGEN_APP
// (not a constant here, where nothing would use it).

/* ---- headers ---- */
struct headers_t {
    pktgen_timer_header_t pktgen;
    ethernet_t ethernet;
    hula_t     hula;
    ipv4_t     ipv4;
    tcp_t      tcp;
    udp_t      udp;
}

/* ---- metadata ---- */
struct path_util_t {
    bit<16> util;
    bit<16> epoch;
}

struct ig_metadata_t {
    probe_pass_t pass;
    bit<16> dstTor;
    bit<8>  bucket;
    bit<16> l4Src;
    bit<16> l4Dst;
    bit<32> now;
    bit<32> utilEpoch;
    bit<16> aliveEpoch;
    bit<16> tor;
    bit<16> inHop;
    bit<16> bestHop;
    bit<16> probeUtil;
    bit<16> utilKey;
    bit<32> utilBytes;
    PortId_t utilPort;
}

struct eg_metadata_t { }

/* ---- parsers ---- */
parser IngressParser(packet_in pkt, out headers_t hdr, out ig_metadata_t meta,
                     out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        // Every field of meta, so none is read undefined (and p4c has no out parameter to warn
        // about as possibly uninitialized); the L4 ports are set again by parse_tcp / parse_udp.
        meta.dstTor = 0;
        meta.bucket = 0;
        meta.l4Src = 0;
        meta.l4Dst = 0;
        meta.now = 0;
        meta.utilEpoch = 0;
        meta.aliveEpoch = 0;
        meta.tor = 0;
        meta.inHop = 0;
        meta.bestHop = 0;
        meta.probeUtil = 0;
        meta.utilKey = 0;
        meta.utilBytes = 0;
        meta.utilPort = 0;
        transition select(ig_intr_md.resubmit_flag) {
            1: parse_resubmit;
            default: parse_port_metadata;
        }
    }
#include "../../include/tna_probe_parser.p4"
    state parse_pktgen {
        pkt.extract(hdr.pktgen);
        pkt.advance(PKTGEN_SKIP_BITS);
        pkt.extract(hdr.hula);
        transition accept;
    }
    state parse_ethernet {
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
}

/* ---- ingress ---- */
control MyIngress(inout headers_t hdr, inout ig_metadata_t meta,
                  in ingress_intrinsic_metadata_t ig_intr_md,
                  in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                  inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                  inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    Hash<bit<8>>(HashAlgorithm_t.CRC16) bucketHash;
    Hash<bit<12>>(HashAlgorithm_t.CRC32) flowletHash;

    Register<bit<16>, bit<16>>(MAX_TORS) bestHop;
    Register<path_util_t, bit<16>>(MAX_TORS) pathUtil;
    Register<bit<16>, bit<12>>(FLOWLET_SLOTS) flowletHop;

#include "../../include/tna_probe_state.p4"
    RegisterAction<bit<16>, bit<16>, bit<16>>(bestHop) readBestHop = {
        void apply(inout bit<16> value, out bit<16> rv) {
            rv = value;
        }
    };
    RegisterAction<bit<16>, bit<16>, bit<16>>(bestHop) writeBestHop = {
        void apply(inout bit<16> value) {
            value = meta.inHop;
        }
    };
    // The best-hop decision: a better path, news from the best hop (key 0), or a stale entry.
    RegisterAction<path_util_t, bit<16>, bit<16>>(pathUtil) updatePathUtil = {
        void apply(inout path_util_t value, out bit<16> rv) {
            if (value.util >= meta.utilKey || meta.aliveEpoch - value.epoch > KEEPALIVE_EPOCHS) {
                value.util = meta.probeUtil;
                value.epoch = meta.aliveEpoch;
            }
            rv = value.util;
        }
    };
    RegisterAction<bit<16>, bit<12>, bit<16>>(flowletHop) startFlowlet = {
        void apply(inout bit<16> value, out bit<16> rv) {
            value = meta.bestHop;
            rv = value;
        }
    };
    RegisterAction<bit<16>, bit<12>, bit<16>>(flowletHop) keepFlowlet = {
        void apply(inout bit<16> value, out bit<16> rv) {
            rv = value;
        }
    };

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
    action setProbeGroup(bit<16> group) {
        ig_tm_md.mcast_grp_a = group;
    }
    action originateProbe(bit<24> torId, bit<16> group) {
        hdr.pktgen.setInvalid();
        hdr.ethernet.setValid();
        hdr.ethernet.dstAddr = 0xFFFFFFFFFFFF;
        hdr.ethernet.srcAddr = 0;
        hdr.ethernet.etherType = TYPE_HULA;
        hdr.hula.torId = torId;
        hdr.hula.minUtil = 0;
        ig_tm_md.mcast_grp_a = group;
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
        key = { ig_intr_md.ingress_port: exact; }
        actions = { setProbeGroup; drop; }
        default_action = drop();
        size = MAX_PORTS;
    }
    table probeSource {
        key = { hdr.pktgen.app_id: exact; }
        actions = { originateProbe; drop; }
        default_action = drop();
        size = 8;
    }

    apply {
        meta.now = ig_prsr_md.global_tstamp[41:10];
        meta.utilEpoch = (bit<32>)ig_prsr_md.global_tstamp[47:19];  // 2^19 ns = 2^TAU_SHIFT
        meta.aliveEpoch = ig_prsr_md.global_tstamp[31:16];
        meta.inHop = BEST_HOP_VALID | (bit<16>)ig_intr_md.ingress_port;

        // What this packet is; every register below is then touched at one place.
        bit<3> kind = KIND_NONE;
        if (hdr.pktgen.isValid()) {
            probeSource.apply();
        } else if (hdr.hula.isValid()) {
            meta.tor = hdr.hula.torId[15:0];
            if (ig_intr_md.resubmit_flag == 1) {
                kind = KIND_PROBE_UPDATE;
            } else {
                kind = KIND_PROBE_MEASURE;
            }
        } else if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
            switch (ipv4Route.apply().action_run) {
                toHost: { kind = KIND_DATA; }
                toTor: {
                    meta.tor = meta.dstTor;
                    kind = KIND_DATA_TOR;
                }
            }
        } else {
            drop();
        }

        // Per-destination state: a probe's second pass writes it, everything else reads it.
        if (kind == KIND_PROBE_UPDATE) {
            meta.probeUtil = (bit<16>)meta.pass.value;
            if (meta.pass.force == 1) {
                meta.utilKey = 0;
            } else {
                meta.utilKey = meta.probeUtil + 1;
            }
            bit<16> bestUtil = updatePathUtil.execute(meta.tor);
            if (bestUtil == meta.probeUtil) {
                writeBestHop.execute(meta.tor);
            }
            hdr.hula.minUtil = bestUtil[7:0];
            probeGroup.apply();
        } else if (kind == KIND_PROBE_MEASURE || kind == KIND_DATA_TOR) {
            meta.bestHop = readBestHop.execute(meta.tor);
        }

        // A new flowlet takes the current best hop; none yet: the hashed next hop.
        if (kind == KIND_DATA_TOR) {
            bit<12> slot = flowletHash.get({ hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol,
                                             meta.l4Src, meta.l4Dst });
            bit<8> fresh = touchFlowlet.execute(slot);
            bit<16> hop;
            if (fresh == 1) {
                hop = startFlowlet.execute(slot);
            } else {
                hop = keepFlowlet.execute(slot);
            }
            if ((hop & BEST_HOP_VALID) != 0) {
                ig_tm_md.ucast_egress_port = hop[8:0];
            } else {
                meta.bucket = bucketHash.get({ hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol,
                                               meta.l4Src, meta.l4Dst }) & BUCKET_MASK;
                nextHop.apply();
            }
        }

        // Estimator: data adds its bytes on the egress port; a probe reads its arrival port.
        if (kind == KIND_PROBE_MEASURE) {
            meta.utilPort = ig_intr_md.ingress_port;
            meta.utilBytes = 0;
        } else {
            meta.utilPort = ig_tm_md.ucast_egress_port;
            meta.utilBytes = (bit<32>)hdr.ipv4.totalLen;
        }
        bit<32> bytes = 0;
        if (kind == KIND_PROBE_MEASURE || kind == KIND_DATA || kind == KIND_DATA_TOR) {
            bytes = accountLink.execute(meta.utilPort);
        }

        // First pass of a probe: carry max(minUtil, link util) and the force flag to pass 2.
        if (kind == KIND_PROBE_MEASURE) {
            bit<32> scaled = bytes >> UTIL_SHIFT;
            bit<8> util = 255;
            if (scaled < 255) {
                util = scaled[7:0];
            }
            meta.pass.setValid();
            meta.pass.value = hdr.hula.minUtil;
            if (util > hdr.hula.minUtil) {
                meta.pass.value = util;
            }
            meta.pass.force = 0;
            if ((meta.bestHop & BEST_HOP_VALID) == 0 || meta.bestHop == meta.inHop) {
                meta.pass.force = 1;
            }
            meta.pass.pad = 0;
            ig_dprsr_md.resubmit_type = RESUBMIT_PROBE;
        }
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

/* ---- deparsers ---- */
#include "../../include/tna_probe_deparsers.p4"

/* ---- switch ---- */
Pipeline(IngressParser(), MyIngress(), IngressDeparser(), EgressParser(), MyEgress(), EgressDeparser()) pipe;
Switch(pipe) main;
