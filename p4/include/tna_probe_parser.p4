// Parser states shared by the TNA programs with probes (hula/tna/hula.p4, dhlb/tna/dhlb.p4): included
// INSIDE their IngressParser body, so it has no include guard and declares only states. It
// expects `pkt`, `hdr` (with ipv4, tcp, udp), `meta` (with `pass`, l4Src, l4Dst) and
// `ig_intr_md`, and transitions to two states the program defines: parse_pktgen (a packet
// from the generator) and parse_ethernet.
//
// The program's own start state extracts the intrinsic metadata, sets every field of its
// metadata (which differ per program), and goes to parse_resubmit when resubmit_flag is 1 (a
// probe's second pass carries its 64-bit probe_pass_t where other packets carry the port
// metadata) and to parse_port_metadata otherwise.

    state parse_resubmit {
        pkt.extract(meta.pass);
        transition parse_ethernet;
    }
    state parse_port_metadata {
        pkt.advance(PORT_METADATA_SIZE);
        transition select(ig_intr_md.ingress_port) {
            PKTGEN_PORT &&& PKTGEN_PORT_MASK: parse_pktgen;
            default: parse_ethernet;
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
