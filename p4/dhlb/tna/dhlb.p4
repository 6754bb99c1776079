/* DHLB for Tofino 1 (TNA).
 *
 * Algorithm (the DHLB paper), as in ../v1model/dhlb.p4: ToRs send INT-like probes up; each switch maps
 * the utilization of the link a probe arrived on to a load degree (0-25% -> 5, 25-50% -> 3,
 * 50-70% -> 2, 70-90% -> 1, above -> 0), keeps the smallest degree along the path and records
 * it per (origin ToR, path slot). New flowlets pick a slot with probability proportional to
 * its degree (weightedPick, precomputed by the control plane).
 *
 * Probe: ethertype TYPE_DHLB (0x2347), dhlb_t { originTor: 16, minDegree: 8, hopCount: 8 },
 * then hopCount (<= 4) dhlb_hop_t { switchId: 16, ingressPort: 16, egressPort: 16,
 * loadDegree: 8 }. Each switch appends a record while there is room; MyEgress fills in
 * egressPort per copy (the record's index travels in the bridged header).
 * pktgen (control plane, ToRs): app id 1, periodic timer T_probe (>= 2 x flowlet gap), 1 batch
 * of 1 packet, port 68 of pipe 0; buffer = 8 ignored bytes, dhlb_t, zero padding (58 B);
 * probeSource[app id] -> originateProbe(torId, uplink group), which also appends the ToR's
 * own record (degree 5).
 *
 * Registers (MyIngress):
 *   linkUtil[MAX_PORTS]  util_window_t {epoch, bytes}  bytes out of each port in the current
 *                        2^19 ns window (tau = 524_288 ns, as the control plane assumes)
 *   pathDegree0..3[MAX_TORS]   bit<8>  per origin ToR: min degree of the path via slot 0..3
 *   flowletSlot[FLOWLET_SLOTS] bit<8>  path slot per flowlet (SLOT_NONE: nextHop)
 *   flowletTime[FLOWLET_SLOTS] bit<32> time of the slot's last packet, ns >> 10
 * Tables (MyIngress):
 *   switchInfo (keyless)  setSwitchId(id)
 *   ipv4Route  key hdr.ipv4.dstAddr: lpm   actions toHost(port, dmac), toTor(tor), drop
 *   nextHop    key meta.dstTor, meta.bucket: exact   actions setEgress(port), drop
 *   probeGroup key ig_intr_md.ingress_port: exact   actions setProbeGroup(group), drop
 *   portSlot   key ig_intr_md.ingress_port: exact   actions setSlot(slot), NoAction
 *   loadDegree key ig_intr_md.ingress_port: exact, meta.util: range (bytes per tau / 256,
 *              saturated; ranges from that port's link rate)   actions setDegree(degree)
 *   weightedPick key meta.degree0..3, meta.pickRand: exact   actions pickSlot(slot), NoAction
 *   slotPort   key meta.slot: exact   actions setEgress(port), drop
 *   probeSource key hdr.pktgen.app_id: exact   actions originateProbe(torId, group), drop
 * Counters: MyEgress.portTx[MAX_PORTS]. Multicast: one group per ingress port, DHLB's rule.
 * Shared pieces in ../../include: tna_probe_parser.p4 (parser states), tna_probe_state.p4
 * (linkUtil, flowletTime), tna_probe_deparsers.p4. DHLB's own, beside this file: dhlb_hops.p4
 * (the hop-record parser states) and dhlb_degrees.p4 (pathDegree0..3 and their read/write actions).
 *
 * Differences from ../v1model/dhlb.p4, and why:
 * - Estimator: a tumbling window of bytes per 2^19 ns (no multiply on Tofino), see hula.p4.
 * - Probes take two passes (resubmit, include/tna_common.p4): pass 1 reads linkUtil of the
 *   arrival port and maps it to a degree; pass 2 writes pathDegree<slot>, appends the record
 *   and replicates. Data packets read pathDegree before choosing a port and update linkUtil
 *   after, so one pass cannot do both.
 * - Each pathDegree register has a read action (data) and a write action (probes): one access
 *   per packet. Time is ns; queue depth is not used (DHLB's input is link utilization).
 *
 * Configured by src-main/core/controlplane, rendering bfrt_python (bfrt.dhlb.pipe.MyIngress...).
 * Checked against p4lang/p4c backends/tofino/bf-p4c/p4include: tna.p4 at f155d030,
 * tofino1_arch.p4 at 2f382d16 (TNA 2.0.1), tofino1_base.p4 at 4d9bc819 (Random, Hash,
 * Resubmit, RegisterAction), tofino1_specs.p4 at 2ec8e737; Open-Tofino 8eb52a6e
 * p4-examples tna_pktgen, tna_resubmit, tna_register; c2c6d345 tna_bridged_md (listing).
 */
#include <core.p4>
#include <tna.p4>
// The constants of the shared includes this program uses (the others stay undeclared, so p4c
// has none to warn about as unused).
#define P4LAB_DHLB
#define P4LAB_TNA_PKTGEN
#define P4LAB_TNA_PROBE_PASSES
#include "../../include/headers.p4"
#include "../../include/tna_common.p4"

/* ---- constants ---- */
const bit<32> MAX_PORTS     = 512;
const bit<32> MAX_TORS      = 1024;
const bit<32> FLOWLET_SLOTS = 4096;
const bit<8>  BUCKET_MASK   = 0x0F;
const int     ROUTE_SIZE    = 1024;
const int     NEXTHOP_SIZE  = 16384;
const int     PICK_SIZE     = 16384;
const int     LOAD_DEGREE_SIZE = 2048;  // MAX_PORTS x 4 utilization bands
const bit<32> FLOWLET_GAP   = 98;     // 100 us in ns >> 10 units
const bit<8>  UTIL_SHIFT    = 8;      // meta.util = bytes per tau / 256
const bit<8>  SLOT_NONE     = 0xFF;
const bit<8>  MAX_DEGREE    = 5;

/* ---- headers ---- */
// Ingress -> egress: which hop record this switch appended (DHLB_MAX_HOPS: none).
header bridge_t {
    bit<8> hopIndex;
}

struct headers_t {
    bridge_t   bridge;
    pktgen_timer_header_t pktgen;
    ethernet_t ethernet;
    dhlb_t     dhlb;
    dhlb_hop_t hop0;
    dhlb_hop_t hop1;
    dhlb_hop_t hop2;
    dhlb_hop_t hop3;
    ipv4_t     ipv4;
    tcp_t      tcp;
    udp_t      udp;
}

/* ---- metadata ---- */
struct ig_metadata_t {
    probe_pass_t pass;
    bit<16> dstTor;
    bit<8>  bucket;
    bit<16> l4Src;
    bit<16> l4Dst;
    bit<32> now;
    bit<32> utilEpoch;
    bit<16> switchId;
    bit<16> util;
    bit<8>  degree;
    bit<8>  slot;
    bit<8>  degree0;
    bit<8>  degree1;
    bit<8>  degree2;
    bit<8>  degree3;
    bit<8>  pickRand;
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
        meta.switchId = 0;
        meta.util = 0;
        meta.degree = 0;
        meta.slot = 0;
        meta.degree0 = 0;
        meta.degree1 = 0;
        meta.degree2 = 0;
        meta.degree3 = 0;
        meta.pickRand = 0;
        meta.utilBytes = 0;
        meta.utilPort = 0;
        transition select(ig_intr_md.resubmit_flag) {
            1: parse_resubmit;
            default: parse_port_metadata;
        }
    }
#include "../../include/tna_probe_parser.p4"
#include "dhlb_hops.p4"
    state parse_pktgen {
        pkt.extract(hdr.pktgen);
        pkt.advance(PKTGEN_SKIP_BITS);
        pkt.extract(hdr.dhlb);
        transition accept;
    }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            TYPE_IPV4: parse_ipv4;
            TYPE_DHLB: parse_dhlb;
            default: accept;
        }
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
    Random<bit<4>>() pickRandom;

    Register<bit<8>, bit<12>>(FLOWLET_SLOTS) flowletSlot;
#include "../../include/tna_probe_state.p4"
#include "dhlb_degrees.p4"

    RegisterAction<bit<8>, bit<12>, bit<8>>(flowletSlot) startFlowlet = {
        void apply(inout bit<8> value, out bit<8> rv) {
            value = meta.slot;
            rv = value;
        }
    };
    RegisterAction<bit<8>, bit<12>, bit<8>>(flowletSlot) keepFlowlet = {
        void apply(inout bit<8> value, out bit<8> rv) { rv = value; }
    };

    action drop() { ig_dprsr_md.drop_ctl = 1; }
    action toHost(bit<9> port, bit<48> dmac) {
        ig_tm_md.ucast_egress_port = port;
        hdr.ethernet.dstAddr = dmac;
    }
    action toTor(bit<16> tor) { meta.dstTor = tor; }
    action setEgress(bit<9> port) { ig_tm_md.ucast_egress_port = port; }
    action setSwitchId(bit<16> id) { meta.switchId = id; }
    action setProbeGroup(bit<16> group) { ig_tm_md.mcast_grp_a = group; }
    action setSlot(bit<8> slot) { meta.slot = slot; }
    action setDegree(bit<8> degree) { meta.degree = degree; }
    action pickSlot(bit<8> slot) { meta.slot = slot; }
    action originateProbe(bit<16> torId, bit<16> group) {
        hdr.pktgen.setInvalid();
        hdr.ethernet.setValid();
        hdr.ethernet.dstAddr = 0xFFFFFFFFFFFF;
        hdr.ethernet.srcAddr = 0;
        hdr.ethernet.etherType = TYPE_DHLB;
        hdr.dhlb.originTor = torId;
        hdr.dhlb.minDegree = MAX_DEGREE;
        hdr.dhlb.hopCount = 0;
        ig_tm_md.mcast_grp_a = group;
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
    table probeGroup {
        key = { ig_intr_md.ingress_port: exact; }
        actions = { setProbeGroup; drop; }
        default_action = drop();
        size = MAX_PORTS;
    }
    table portSlot {
        key = { ig_intr_md.ingress_port: exact; }
        actions = { setSlot; NoAction; }
        default_action = NoAction();
        size = MAX_PORTS;
    }
    table loadDegree {
        key = { ig_intr_md.ingress_port: exact; meta.util: range; }
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
    table probeSource {
        key = { hdr.pktgen.app_id: exact; }
        actions = { originateProbe; drop; }
        default_action = drop();
        size = 8;
    }

    apply {
        meta.now = ig_prsr_md.global_tstamp[41:10];
        meta.utilEpoch = (bit<32>)ig_prsr_md.global_tstamp[47:19];  // tau = 2^19 ns
        meta.slot = SLOT_NONE;
        meta.degree = MAX_DEGREE;
        hdr.bridge.setValid();
        hdr.bridge.hopIndex = DHLB_MAX_HOPS;
        switchInfo.apply();

        // What this packet is; every register below is then touched at one place.
        bit<3> kind = KIND_NONE;
        bool appendHop = false;
        if (hdr.pktgen.isValid()) {
            switch (probeSource.apply().action_run) {
                originateProbe: { appendHop = true; }
            }
        } else if (hdr.dhlb.isValid()) {
            if (ig_intr_md.resubmit_flag == 1) {
                kind = KIND_PROBE_UPDATE;
                appendHop = true;
            } else {
                kind = KIND_PROBE_MEASURE;
            }
        } else if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
            switch (ipv4Route.apply().action_run) {
                toHost: { kind = KIND_DATA; }
                toTor: { kind = KIND_DATA_TOR; }
            }
        } else {
            drop();
        }

        // Path degrees: a probe's second pass writes the slot it arrived on; data reads all four.
        if (kind == KIND_PROBE_UPDATE) {
            meta.degree = meta.pass.value;
            if (meta.degree < hdr.dhlb.minDegree) {
                hdr.dhlb.minDegree = meta.degree;
            }
            if (portSlot.apply().hit) {
                if (meta.slot == 0) { writeDegree0.execute(hdr.dhlb.originTor); }
                else if (meta.slot == 1) { writeDegree1.execute(hdr.dhlb.originTor); }
                else if (meta.slot == 2) { writeDegree2.execute(hdr.dhlb.originTor); }
                else if (meta.slot == 3) { writeDegree3.execute(hdr.dhlb.originTor); }
            }
        } else if (kind == KIND_DATA_TOR) {
            meta.degree0 = readDegree0.execute(meta.dstTor);
            meta.degree1 = readDegree1.execute(meta.dstTor);
            meta.degree2 = readDegree2.execute(meta.dstTor);
            meta.degree3 = readDegree3.execute(meta.dstTor);
            meta.pickRand = (bit<8>)pickRandom.get();
            bit<12> fslot = flowletHash.get({ hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol,
                                              meta.l4Src, meta.l4Dst });
            bit<8> fresh = touchFlowlet.execute(fslot);
            if (fresh == 1) {
                weightedPick.apply();  // no entry (all degrees 0): SLOT_NONE, nextHop
                meta.slot = startFlowlet.execute(fslot);
            } else {
                meta.slot = keepFlowlet.execute(fslot);
            }
            if (meta.slot != SLOT_NONE) {
                slotPort.apply();
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

        // First pass of a probe: the arrival link's load degree, carried to the second pass.
        // The origin's own host link is not on the path: hopCount 0 keeps MAX_DEGREE.
        if (kind == KIND_PROBE_MEASURE) {
            bit<32> scaled = bytes >> UTIL_SHIFT;
            meta.util = 0xFFFF;
            if (scaled < 0xFFFF) {
                meta.util = scaled[15:0];
            }
            if (hdr.dhlb.hopCount > 0) {
                loadDegree.apply();
            }
            meta.pass.setValid();
            meta.pass.value = meta.degree;
            meta.pass.force = 0;
            meta.pass.pad = 0;
            ig_dprsr_md.resubmit_type = RESUBMIT_PROBE;
        }

        // This switch's hop record (generated probes: the ToR's own, degree MAX_DEGREE).
        if (appendHop) {
            dhlb_hop_t rec;
            rec.setValid();
            rec.switchId = meta.switchId;
            rec.ingressPort = (bit<16>)ig_intr_md.ingress_port;
            rec.egressPort = 0;
            rec.loadDegree = meta.degree;
            hdr.bridge.hopIndex = hdr.dhlb.hopCount;
            if (hdr.dhlb.hopCount == 0) { hdr.hop0 = rec; }
            else if (hdr.dhlb.hopCount == 1) { hdr.hop1 = rec; }
            else if (hdr.dhlb.hopCount == 2) { hdr.hop2 = rec; }
            else if (hdr.dhlb.hopCount == 3) { hdr.hop3 = rec; }
            if (hdr.dhlb.hopCount < DHLB_MAX_HOPS) {
                hdr.dhlb.hopCount = hdr.dhlb.hopCount + 1;
            }
            if (kind == KIND_PROBE_UPDATE) {
                probeGroup.apply();
            }
        }
    }
}

/* ---- egress parser ---- */
// Every packet carries the bridged header; only probes are parsed further (hopCount was
// already advanced by this switch's ingress).
parser EgressParser(packet_in pkt, out headers_t hdr, out eg_metadata_t meta,
                    out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        pkt.extract(hdr.bridge);
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            TYPE_DHLB: parse_dhlb;
            default: accept;
        }
    }
#include "dhlb_hops.p4"
}

/* ---- egress ---- */
control MyEgress(inout headers_t hdr, inout eg_metadata_t meta,
                 in egress_intrinsic_metadata_t eg_intr_md,
                 in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                 inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                 inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    Counter<bit<64>, PortId_t>(MAX_PORTS, CounterType_t.PACKETS_AND_BYTES) portTx;
    apply {
        if (hdr.dhlb.isValid()) {
            bit<16> port = (bit<16>)eg_intr_md.egress_port;
            if (hdr.bridge.hopIndex == 0) { hdr.hop0.egressPort = port; }
            else if (hdr.bridge.hopIndex == 1) { hdr.hop1.egressPort = port; }
            else if (hdr.bridge.hopIndex == 2) { hdr.hop2.egressPort = port; }
            else if (hdr.bridge.hopIndex == 3) { hdr.hop3.egressPort = port; }
        }
        hdr.bridge.setInvalid();
        portTx.count(eg_intr_md.egress_port);
    }
}

/* ---- deparsers ---- */
#include "../../include/tna_probe_deparsers.p4"

/* ---- switch ---- */
Pipeline(IngressParser(), MyIngress(), IngressDeparser(), EgressParser(), MyEgress(), EgressDeparser()) pipe;
Switch(pipe) main;
