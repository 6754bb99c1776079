// DHLB probe states: dhlb_t, then hopCount (at most DHLB_MAX_HOPS = 4) hop records into
// hdr.hop0..hdr.hop3. Included INSIDE a parser body (dhlb.p4 uses it in its ingress and
// its egress parser), so it has no include guard and declares only states; it expects `pkt`
// and `hdr` with dhlb, hop0..hop3. Enter at parse_dhlb.

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
