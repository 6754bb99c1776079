/* Floodgate for Tofino 1 (TNA).
 *
 * Algorithm (the Floodgate paper), as in ../v1model/floodgate.p4: each switch keeps, per destination ToR, a
 * window of bytes it may send to the next hop; a packet consumes window, and the downstream
 * switch returns credits for the bytes it received, which reopen it.
 *
 * Credit: ethertype TYPE_CREDIT (0x2348), credit_t { dstTor: 16, bytes: 32 }, a 64 B frame.
 * Credits are timer-triggered: pktgen configuration (control plane): app id 1, periodic timer,
 * period T = 10 us (the credit interval), 1 batch of N packets (N = creditTarget entries,
 * packet_id 0..N-1), port 68 (pipe 0); buffer = a 64 B credit frame minus its first 6 bytes
 * (8 ignored bytes, credit_t, zero padding). Packet i looks up creditTarget[i] ->
 * sendCredit(port, dstTor, counter), takes and clears creditCount[counter] and, if it was not
 * 0, leaves on `port` as a credit of that many bytes for dstTor (0 bytes: dropped).
 *
 * Registers (MyIngress):
 *   window[MAX_TORS]          int<32>  bytes left per destination ToR (initialised by the
 *                             control plane: BDP to the next hop + C_out x T)
 *   creditCount[CREDIT_TABLE] bit<32>  bytes received, not yet credited, per
 *                             (dstTor << CREDIT_SLOT_SHIFT | port slot)
 * Counters: MyIngress.overWindow[MAX_TORS] (what a VOQ would have held), MyEgress.portTx[MAX_PORTS].
 * Tables (MyIngress):
 *   switchInfo (keyless)  setSwitchId(id)   (a ToR's id must be its ToR index: toHost counts
 *                         under dstTor = switchId; compute.ts numbers ToRs first and asserts it)
 *   ipv4Route    key hdr.ipv4.dstAddr: lpm   actions toHost(port, dmac), toTor(tor), drop
 *   nextHop      key meta.dstTor, meta.bucket: exact   actions setEgress(port), drop
 *   portSlot     key ig_intr_md.ingress_port: exact   actions setSlot(slot), NoAction  (dense
 *                slot 0..CREDIT_PORT_SLOTS-1 per fabric port, numbered by the control plane)
 *   creditTarget key hdr.pktgen.packet_id: exact   actions sendCredit(port, dstTor, counter), drop
 * Multicast: none.
 *
 * Honest differences from the paper (and from ../v1model/floodgate.p4):
 * - No per-destination VOQ: the pipeline cannot hold a packet until credit arrives. A packet
 *   its window does not cover is still forwarded, counted in overWindow, ECN-marked (CE) when
 *   ECN-capable, and put in queue OVER_WINDOW_QID of its egress port (ig_tm_md.qid) instead
 *   of queue 0. The control plane should give that queue a lower priority or a small DWRR
 *   weight (bfrt tm.queue), so over-window traffic cannot delay in-window traffic to other
 *   destinations: the head-of-line isolation a VOQ gives, shared by all destinations on the
 *   port rather than one per destination, and not credit-gated. A flow whose window reopens
 *   while its earlier packets still sit in that queue can be reordered.
 * - No per-destination PAUSE (advanced flow control is not reachable from the P4 program).
 * - Credits carry the exact bytes counted since the last timer tick, not CREDIT_BYTES chunks;
 *   a counter is only counted up by data and flushed by the generator (two RegisterActions).
 * - Only ports with a portSlot entry (fabric ports) are counted; there is no creditPort table
 *   (no mirror sessions: the generator sends the credits).
 * - Queue depth (egress only) is not used: the window is kept in bytes in ingress.
 *
 * Configured by src-main/core/controlplane, rendering bfrt_python
 * (bfrt.floodgate.pipe.MyIngress..., register window initial values).
 * Checked against p4lang/p4c backends/tofino/bf-p4c/p4include: tna.p4 at f155d030,
 * tofino1_arch.p4 at 2f382d16 (TNA 2.0.1), tofino1_base.p4 at 4d9bc819 (ig_tm_md.qid,
 * pktgen_timer_header_t, Counter), tofino1_specs.p4 at 2ec8e737; Open-Tofino 8eb52a6e
 * p4-examples tna_pktgen, tna_register; bf-p4c p4-tests stateful7.p4 (compare forms).
 */
#include <core.p4>
#include <tna.p4>
// The constants of the shared includes this program uses (the others stay undeclared, so p4c
// has none to warn about as unused).
#define P4LAB_FLOODGATE
#define P4LAB_TNA_PKTGEN
#include "../../include/headers.p4"
#include "../../include/tna_common.p4"

/* ---- constants ---- */
const bit<32>   MAX_PORTS       = 512;
const bit<32>   MAX_TORS        = 1024;
const bit<32>   CREDIT_PORT_SLOTS = 32;   // fabric ports per switch with a credit counter
const bit<8>    CREDIT_SLOT_SHIFT = 5;    // log2(CREDIT_PORT_SLOTS)
const bit<32>   CREDIT_TABLE    = MAX_TORS * CREDIT_PORT_SLOTS;
const bit<8>    BUCKET_MASK     = 0x0F;
const int       ROUTE_SIZE      = 1024;
const int       NEXTHOP_SIZE    = 16384;
const int       CREDIT_TARGETS  = 4096;
const QueueId_t OVER_WINDOW_QID = 1;

/* ---- headers ---- */
struct headers_t {
    pktgen_timer_header_t pktgen;
    ethernet_t ethernet;
    credit_t   credit;
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
    bit<16> switchId;
    bit<16> creditIndex;
    bit<8>  portSlot;
    int<32> len;
    int<32> creditBytes;
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
        meta.switchId = 0;
        meta.creditIndex = 0;
        meta.portSlot = 0;
        meta.len = 0;
        meta.creditBytes = 0;
        transition select(ig_intr_md.ingress_port) {
            PKTGEN_PORT &&& PKTGEN_PORT_MASK: parse_pktgen;
            default: parse_ethernet;
        }
    }
    state parse_pktgen {
        pkt.extract(hdr.pktgen);
        pkt.advance(PKTGEN_SKIP_BITS);
        pkt.extract(hdr.credit);
        transition accept;
    }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            TYPE_IPV4: parse_ipv4;
            TYPE_CREDIT: parse_credit;
            default: accept;
        }
    }
    state parse_credit {
        pkt.extract(hdr.credit);
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
    Counter<bit<64>, bit<16>>(MAX_TORS, CounterType_t.PACKETS_AND_BYTES) overWindow;

    Register<int<32>, bit<16>>(MAX_TORS) window;
    Register<bit<32>, bit<16>>(CREDIT_TABLE) creditCount;

    // Credit from downstream reopens the window.
    RegisterAction<int<32>, bit<16>, int<32>>(window) refillWindow = {
        void apply(inout int<32> value) {
            value = value + meta.creditBytes;
        }
    };
    // A packet takes its bytes from the window; 1 when the window did not cover it.
    RegisterAction<int<32>, bit<16>, bit<8>>(window) consumeWindow = {
        void apply(inout int<32> value, out bit<8> rv) {
            rv = 0;
            if (value < meta.len) {
                rv = 1;
            }
            value = value - meta.len;
        }
    };
    RegisterAction<bit<32>, bit<16>, bit<32>>(creditCount) countCredit = {
        void apply(inout bit<32> value) {
            value = value + (bit<32>)hdr.ipv4.totalLen;
        }
    };
    RegisterAction<bit<32>, bit<16>, bit<32>>(creditCount) flushCredit = {
        void apply(inout bit<32> value, out bit<32> rv) {
            rv = value;
            value = 0;
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
    action setSwitchId(bit<16> id) {
        meta.switchId = id;
    }
    action setSlot(bit<8> slot) {
        meta.portSlot = slot;
    }
    action sendCredit(bit<9> port, bit<16> dstTor, bit<16> counter) {
        ig_tm_md.ucast_egress_port = port;
        hdr.credit.dstTor = dstTor;
        meta.creditIndex = counter;
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
    table portSlot {
        key = { ig_intr_md.ingress_port: exact; }
        actions = { setSlot; NoAction; }
        default_action = NoAction();
        size = MAX_PORTS;
    }
    table creditTarget {
        key = { hdr.pktgen.packet_id: exact; }
        actions = { sendCredit; drop; }
        default_action = drop();
        size = CREDIT_TARGETS;
    }

    apply {
        if (hdr.pktgen.isValid()) {
            // Timer tick: flush one (upstream port, dstTor) counter into a credit.
            switch (creditTarget.apply().action_run) {
                sendCredit: {
                    bit<32> bytes = flushCredit.execute(meta.creditIndex);
                    if (bytes == 0) {
                        drop();
                    } else {
                        hdr.pktgen.setInvalid();
                        hdr.ethernet.setValid();
                        hdr.ethernet.dstAddr = 0xFFFFFFFFFFFF;
                        hdr.ethernet.srcAddr = 0;
                        hdr.ethernet.etherType = TYPE_CREDIT;
                        hdr.credit.bytes = bytes;
                    }
                }
            }
        } else if (hdr.credit.isValid()) {
            // A credit from downstream goes no further.
            meta.creditBytes = (int<32>)hdr.credit.bytes;
            refillWindow.execute(hdr.credit.dstTor);
            drop();
        } else if (!hdr.ipv4.isValid() || hdr.ipv4.ttl <= 1) {
            drop();
        } else {
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
            switchInfo.apply();
            meta.len = (int<32>)(bit<32>)hdr.ipv4.totalLen;
            bool routed = false;
            switch (ipv4Route.apply().action_run) {
                toHost: {
                    meta.dstTor = meta.switchId;  // a ToR's switch id is its ToR index
                    routed = true;
                }
                toTor: {
                    meta.bucket = bucketHash.get({ hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol,
                                                   meta.l4Src, meta.l4Dst }) & BUCKET_MASK;
                    nextHop.apply();
                    routed = true;
                    bit<8> over = consumeWindow.execute(meta.dstTor);
                    if (over == 1) {
                        // What a VOQ would hold: count it, mark it, queue it apart.
                        overWindow.count(meta.dstTor);
                        ig_tm_md.qid = OVER_WINDOW_QID;
                        if (hdr.ipv4.diffserv[1:0] != 0) {
                            hdr.ipv4.diffserv[1:0] = 3;
                        }
                    }
                }
            }
            // Bytes received for dstTor on this fabric port, credited upstream at the next tick.
            if (routed) {
                if (portSlot.apply().hit) {
                    meta.creditIndex = (meta.dstTor << CREDIT_SLOT_SHIFT) | (bit<16>)meta.portSlot;
                    countCredit.execute(meta.creditIndex);
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
