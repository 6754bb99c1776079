/* LetFlow for Tofino 1 (TNA).
 *
 * Algorithm (Vanini et al., "Let It Flow: Resilient Asymmetric Load Balancing
 * with Flowlet Switching", USENIX NSDI 2017), as in v1model/letflow.p4: a
 * packet to a remote ToR whose flow was quiet for longer than the flowlet gap
 * (or whose flowlet slot is empty) starts a new flowlet on a uniformly random
 * bucket (Random<bit<4>>: 0..15) of that ToR's next-hop group; the rest of the
 * flowlet reuses the bucket, which nextHop resolves on every packet (so the
 * control plane's failover of a dead port's buckets moves its flowlets too).
 * No congestion state and no messages.
 *
 * Flowlet slot = CRC32 of the 5-tuple, 12 bits wide (FLOWLET_SLOTS = 2^12).
 *
 * Registers (MyIngress):
 *   flowletTime[FLOWLET_SLOTS]    int<32>  time of the slot's last packet in 1024 ns ticks,
 *                                          with bit 0 set (TIME_SET); 0: empty slot
 *   flowletBucket[FLOWLET_SLOTS]  bit<8>   bucket (0..15) of the slot's flowlet
 *   One RegisterAction per read-modify-write: touchFlowlet (flowletTime: 1 when a new
 *   flowlet starts, and stores now), startFlowlet / keepFlowlet (flowletBucket: write the
 *   random bucket / read the stored one).
 * Tables (MyIngress):
 *   ipv4Route      key hdr.ipv4.dstAddr: lpm   actions toHost(port, dmac), toTor(tor), drop
 *   nextHop        key meta.dstTor: exact, meta.bucket: exact   actions setEgress(port), drop
 *   flowletConfig  keyless   default action setFlowletGap(gapTicks) (FLOWLET_GAP_TICKS until set)
 * Counters: MyIngress.flowletStarts[MAX_PORTS] packets, by egress port: one per packet that
 * started a flowlet. MyEgress.portTx[MAX_PORTS] packets and bytes, by egress port.
 * Multicast: none. Headers: ethernet / ipv4 / tcp | udp.
 * The egress parser extracts only the intrinsic metadata; the packet passes through unparsed.
 *
 * Differences from v1model/letflow.p4, and why:
 * - Time: global_tstamp is in ns; the program keeps ns >> 10 (1024 ns ticks, as tna/hula.p4 and
 *   tna/conga.p4), so the control plane writes the gap in ticks (gapTicks), not in us.
 * - The gap test. A stateful ALU compares the register with one PHV operand, so "now - last >
 *   gap" (three operands) becomes "cutoff - last > 0" with cutoff = now - gap computed by
 *   setFlowletGap before the register is touched, in signed 32-bit arithmetic (int<32>) so that
 *   the clock's wrap does not matter. A slot idle for over 2^31 ticks (36 min) reads as a
 *   running flowlet and keeps its bucket, which nextHop still resolves to a live port.
 *
 * Configured by src-main/schemes/letflow/controlplane.ts, rendering bfrt_python
 * (bfrt.letflow.pipe.MyIngress.<table>.add_with_<action>, set_default_with_setFlowletGap).
 * Checked against p4lang/p4c backends/tofino/bf-p4c/p4include: tna.p4 and tofino1_arch.p4 at
 * f155d030 (TNA 2.0.1), tofino1_base.p4 at 4d9bc819 (Hash<W>(HashAlgorithm_t), Random<W>()
 * get(), Register<T, I>(size, initial_value), RegisterAction<T, I, U>, Counter<W, I>),
 * tofino1_specs.p4 at ba9cf72a.
 */
#include <core.p4>
#include <tna.p4>
#include "../../include/headers.p4"

/* ---- constants ---- */
const bit<32> MAX_PORTS         = 512;
const bit<32> FLOWLET_SLOTS     = 4096;  // 2^12: the slot hash and the register index are bit<12>
const int     ROUTE_SIZE        = 1024;
const int     NEXTHOP_SIZE      = 16384;
const bit<32> FLOWLET_GAP_TICKS = 98;    // 100 us in 1024 ns ticks, until the control plane sets flowletConfig
const bit<32> TIME_SET          = 1;     // or-ed into every stored time, so 0 means an empty slot

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
    int<32> now;
    int<32> cutoff;
}

struct eg_metadata_t { }

/* ---- parsers ---- */
parser IngressParser(packet_in pkt, out headers_t hdr, out ig_metadata_t meta,
                     out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        // Every field of meta, so none is read undefined; the L4 ports are set again by
        // parse_tcp / parse_udp.
        meta.dstTor = 0;
        meta.bucket = 0;
        meta.l4Src = 0;
        meta.l4Dst = 0;
        meta.now = 0;
        meta.cutoff = 0;
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
    Hash<bit<12>>(HashAlgorithm_t.CRC32) flowletHash;
    Random<bit<4>>() bucketRandom;

    Register<int<32>, bit<12>>(FLOWLET_SLOTS, 0) flowletTime;
    Register<bit<8>, bit<12>>(FLOWLET_SLOTS, 0) flowletBucket;
    Counter<bit<32>, PortId_t>(MAX_PORTS, CounterType_t.PACKETS) flowletStarts;

    // 1 when the packet starts a new flowlet (empty slot, or last packet before the cutoff).
    RegisterAction<int<32>, bit<12>, bit<8>>(flowletTime) touchFlowlet = {
        void apply(inout int<32> value, out bit<8> rv) {
            rv = 0;
            if (value == 0 || meta.cutoff - value > 0) {
                rv = 1;
            }
            value = meta.now;
        }
    };
    RegisterAction<bit<8>, bit<12>, bit<8>>(flowletBucket) startFlowlet = {
        void apply(inout bit<8> value) {
            value = meta.bucket;
        }
    };
    RegisterAction<bit<8>, bit<12>, bit<8>>(flowletBucket) keepFlowlet = {
        void apply(inout bit<8> value, out bit<8> rv) {
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
    action setFlowletGap(bit<32> gapTicks) {
        meta.cutoff = meta.now - (int<32>)gapTicks;
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
        default_action = setFlowletGap(FLOWLET_GAP_TICKS);
    }

    apply {
        if (!hdr.ipv4.isValid() || hdr.ipv4.ttl <= 1) {
            drop();
        } else {
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
            switch (ipv4Route.apply().action_run) {
                toTor: {
                    meta.now = (int<32>)(ig_prsr_md.global_tstamp[41:10] | TIME_SET);
                    flowletConfig.apply();
                    bit<12> slot = flowletHash.get({ hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol,
                                                     meta.l4Src, meta.l4Dst });
                    bit<8> fresh = touchFlowlet.execute(slot);
                    if (fresh == 1) {
                        meta.bucket = (bit<8>)bucketRandom.get();
                        startFlowlet.execute(slot);
                    } else {
                        meta.bucket = keepFlowlet.execute(slot);
                    }
                    nextHop.apply();
                    if (fresh == 1) {
                        flowletStarts.count(ig_tm_md.ucast_egress_port);
                    }
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
