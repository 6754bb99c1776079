/* Floodgate for BMv2 simple_switch (v1model).
 *
 * Algorithm (the Floodgate paper): each switch keeps, per destination ToR, a window of
 * bytes it may send to the next hop; a packet consumes window, and the
 * downstream switch returns credits (every CREDIT_BYTES received for a
 * destination from one upstream port) that reopen it.
 *
 * Honest differences from the paper, because v1model cannot hold a packet:
 * there is no per-destination VOQ. A packet that finds its window exhausted
 * is still forwarded, counted in overWindow (what a VOQ would have held) and
 * ECN-marked (CE) when ECN-capable, which is the closest signal to the
 * senders; the window goes into deficit (two's complement) so the credits
 * for those bytes do not inflate it. No per-destination PAUSE. Credits are
 * byte-triggered only (no 10 us timer: BMv2 has no packet generator).
 *
 * Credit: ethertype TYPE_CREDIT (0x2348), credit_t { dstTor: 16, bytes: 32 }.
 * Made by cloning the data packet (I2E) to the mirror session of its ingress
 * port and rewriting the clone in MyEgress (truncated to 20 bytes).
 *
 * Registers (MyIngress):
 *   window[MAX_TORS]            bit<32> signed bytes left per destination ToR
 *                               (control plane: BDP to next hop + C_out x T)
 *   creditCount[CREDIT_TABLE]   bit<32> bytes not yet credited, per
 *                               (dstTor << CREDIT_SLOT_SHIFT | port slot)
 * Counters: MyIngress.overWindow[MAX_TORS], MyEgress.portTx[MAX_PORTS].
 * Tables (MyIngress):
 *   switchInfo (keyless)  actions setSwitchId(id)
 *   ipv4Route  key hdr.ipv4.dstAddr: lpm   actions toHost(port, dmac), toTor(tor), drop
 *   nextHop    key meta.dstTor: exact, meta.bucket: exact   actions setEgress(port), drop
 *   portSlot   key standard_metadata.ingress_port: exact   actions setSlot(slot), NoAction
 *              (the control plane numbers each switch's fabric ports 0..CREDIT_PORT_SLOTS-1;
 *              ports without a slot are not counted)
 *   creditPort key standard_metadata.ingress_port: exact   actions setCreditSession(session), NoAction
 * Mirror sessions: one per fabric port (mirroring_add <session> <port>). Multicast: none.
 *
 * A ToR's switch id must equal its ToR index: packets for the ToR's own hosts
 * (toHost) count their bytes under dstTor = switchId. The control plane numbers
 * switches ToRs first (compute.ts asserts it).
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
#define P4LAB_FLOODGATE
#include "../../include/headers.p4"
#ifdef P4LAB_INT
#include "../../include/int.p4"
#endif

/* ---- constants ---- */
const bit<32> MAX_PORTS     = 512;
const bit<32> MAX_TORS      = 1024;
const bit<32> CREDIT_PORT_SLOTS = 32; // fabric ports per switch with a credit counter
const bit<8>  CREDIT_SLOT_SHIFT = 5;  // log2(CREDIT_PORT_SLOTS)
const bit<32> CREDIT_TABLE  = MAX_TORS * CREDIT_PORT_SLOTS;
const bit<16> NH_BUCKETS    = 16;
const int     ROUTE_SIZE    = 1024;
const int     NEXTHOP_SIZE  = 16384;
const bit<32> CREDIT_BYTES  = 10240;
const bit<32> CREDIT_FRAME  = 20;     // ethernet + credit_t
const bit<32> PKT_INSTANCE_TYPE_INGRESS_CLONE = 1;
const bit<8>  FL_CREDIT     = 1;

/* ---- headers ---- */
struct headers_t {
    ethernet_t ethernet;
    credit_t   credit;
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
    bit<16> switchId;
    bit<16> creditSession;
    bit<8>  portSlot;
    @field_list(FL_CREDIT)
    bit<16> creditTor;
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
    register<bit<32>>(MAX_TORS) window;
    register<bit<32>>(CREDIT_TABLE) creditCount;
    counter(MAX_TORS, CounterType.packets_and_bytes) overWindow;

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
    action setCreditSession(bit<16> session) {
        meta.creditSession = session;
    }
    action setSlot(bit<8> slot) {
        meta.portSlot = slot;
    }

    table creditPort {
        key = { standard_metadata.ingress_port: exact; }
        actions = { setCreditSession; NoAction; }
        default_action = NoAction();
        size = MAX_PORTS;
    }
    table portSlot {
        key = { standard_metadata.ingress_port: exact; }
        actions = { setSlot; NoAction; }
        default_action = NoAction();
        size = MAX_PORTS;
    }

    apply {
        if (hdr.credit.isValid()) {
            // A credit from downstream reopens the window; it goes no further.
            bit<32> w;
            window.read(w, (bit<32>)hdr.credit.dstTor);
            window.write((bit<32>)hdr.credit.dstTor, w + hdr.credit.bytes);
            drop();
            return;
        }
        if (!hdr.ipv4.isValid() || hdr.ipv4.ttl <= 1) {
            drop();
            return;
        }
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        switchInfo.apply();
        bit<32> len = (bit<32>)hdr.ipv4.totalLen;
        bool routed = false;
        switch (ipv4Route.apply().action_run) {
            toHost: {
                meta.dstTor = meta.switchId;  // a ToR's switch id is its ToR index
                routed = true;
            }
            toTor: {
                if (hdr.tcp.isValid()) {
                    meta.l4Src = hdr.tcp.srcPort;
                    meta.l4Dst = hdr.tcp.dstPort;
                } else if (hdr.udp.isValid()) {
                    meta.l4Src = hdr.udp.srcPort;
                    meta.l4Dst = hdr.udp.dstPort;
                }
                hash(meta.bucket, HashAlgorithm.crc16, (bit<8>)0,
                     { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.ipv4.protocol, meta.l4Src, meta.l4Dst },
                     NH_BUCKETS);
                nextHop.apply();
                routed = true;
                bit<32> w;
                window.read(w, (bit<32>)meta.dstTor);
                if ((int<32>)w < (int<32>)len) {
                    overWindow.count((bit<32>)meta.dstTor);
                    if (hdr.ipv4.diffserv[1:0] != 0) {
                        hdr.ipv4.diffserv[1:0] = 3;
                    }
                }
                window.write((bit<32>)meta.dstTor, w - len);
            }
        }
        // Count bytes received from an upstream switch (a port with a slot); every
        // CREDIT_BYTES, credit it. Dropped packets (no route) are not counted.
        if (routed) {
            if (portSlot.apply().hit) {
                bit<32> idx = ((bit<32>)meta.dstTor << CREDIT_SLOT_SHIFT) | (bit<32>)meta.portSlot;
                bit<32> c;
                creditCount.read(c, idx);
                c = c + len;
                if (c >= CREDIT_BYTES) {
                    c = c - CREDIT_BYTES;
                    meta.creditTor = meta.dstTor;
                    creditPort.apply();
                    clone_preserving_field_list(CloneType.I2E, (bit<32>)meta.creditSession, FL_CREDIT);
                }
                creditCount.write(idx, c);
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
        if (standard_metadata.instance_type == PKT_INSTANCE_TYPE_INGRESS_CLONE) {
            hdr.ethernet.etherType = TYPE_CREDIT;
            hdr.credit.setValid();
            hdr.credit.dstTor = meta.creditTor;
            hdr.credit.bytes = CREDIT_BYTES;
            hdr.ipv4.setInvalid();
            hdr.tcp.setInvalid();
            hdr.udp.setInvalid();
            truncate(CREDIT_FRAME);
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
        pkt.emit(hdr.credit);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.tcp);
        pkt.emit(hdr.udp);
    }
}

/* ---- switch ---- */
V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(), MyDeparser()) main;
