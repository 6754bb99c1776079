// INT option (-DP4LAB_INT): the tables, actions and register of the postcard reports, included
// inside a v1model program's MyEgress control. Expects: hdr.intReport (int_report_headers_t),
// hdr.ethernet, hdr.ipv4, the P4LAB_INT_METADATA fields in meta, standard_metadata. See int.p4.
//
//   intWatch  (egress_port exact)  intPostcard(session: 32) | NoAction   which packets report, and
//                                                                        the mirror session to the collector
//   intReport (keyless)            intEncap(srcMac: 48, dstMac: 48, srcIp: 32, dstIp: 32,
//                                           dstPort: 16, nodeId: 32) | intDrop (default)
//                                                                        the report's addresses and Node ID
//   intSeq    register bit<32>[1]  the next Sequence Number

    register<bit<32>>(INT_SEQ_SIZE) intSeq;

    action intPostcard(bit<32> session) {
        meta.intIngressPort = standard_metadata.ingress_port;
        meta.intEgressPort = standard_metadata.egress_port;
        meta.intIngressTs = standard_metadata.ingress_global_timestamp;
        meta.intEgressTs = standard_metadata.egress_global_timestamp;
        meta.intQdepth = standard_metadata.enq_qdepth;
        clone_preserving_field_list(CloneType.E2E, session, INT_FL);
    }

    action intEncap(bit<48> srcMac, bit<48> dstMac, bit<32> srcIp, bit<32> dstIp, bit<16> dstPort, bit<32> nodeId) {
        bit<32> seq;
        intSeq.read(seq, 0);
        intSeq.write(0, seq + 1);

        hdr.intReport.ethernet.setValid();
        hdr.intReport.ethernet.dstAddr = dstMac;
        hdr.intReport.ethernet.srcAddr = srcMac;
        hdr.intReport.ethernet.etherType = TYPE_IPV4;

        hdr.intReport.ipv4.setValid();
        hdr.intReport.ipv4.version = 4;
        hdr.intReport.ipv4.ihl = 5;
        hdr.intReport.ipv4.diffserv = 0;
        hdr.intReport.ipv4.totalLen = INT_IPV4_LEN;
        hdr.intReport.ipv4.identification = seq[15:0];
        hdr.intReport.ipv4.flags = 2;  // don't fragment (the spec asks for DF or a unique ID)
        hdr.intReport.ipv4.fragOffset = 0;
        hdr.intReport.ipv4.ttl = 64;
        hdr.intReport.ipv4.protocol = PROTO_UDP;
        hdr.intReport.ipv4.hdrChecksum = 0;
        hdr.intReport.ipv4.srcAddr = srcIp;
        hdr.intReport.ipv4.dstAddr = dstIp;

        hdr.intReport.udp.setValid();
        hdr.intReport.udp.srcPort = dstPort;
        hdr.intReport.udp.dstPort = dstPort;
        hdr.intReport.udp.length = INT_UDP_LEN;
        hdr.intReport.udp.checksum = 0;

        hdr.intReport.group.setValid();
        hdr.intReport.group.ver = INT_REPORT_VER;
        hdr.intReport.group.hw_id = 0;
        hdr.intReport.group.seq_no = seq[21:0];
        hdr.intReport.group.node_id = nodeId;

        hdr.intReport.individual.setValid();
        hdr.intReport.individual.rep_type = INT_REP_TYPE_INT;
        hdr.intReport.individual.in_type = INT_IN_TYPE_IPV4;
        hdr.intReport.individual.rep_len = INT_REPORT_WORDS;
        hdr.intReport.individual.md_len = INT_MD_WORDS;
        hdr.intReport.individual.d = 0;
        hdr.intReport.individual.q = 0;
        hdr.intReport.individual.f = 1;
        hdr.intReport.individual.i = 0;
        hdr.intReport.individual.rsvd = 0;
        hdr.intReport.individual.rep_md_bits = INT_REP_MD_BITS;
        hdr.intReport.individual.domain_specific_id = 0;
        hdr.intReport.individual.ds_md_bits = 0;
        hdr.intReport.individual.ds_md_status = 0;

        hdr.intReport.md.setValid();
        hdr.intReport.md.ingress_interface_id = (bit<16>)meta.intIngressPort;
        hdr.intReport.md.egress_interface_id = (bit<16>)meta.intEgressPort;
        hdr.intReport.md.hop_latency = (bit<32>)(meta.intEgressTs - meta.intIngressTs) * 1000;
        hdr.intReport.md.queue_id = 0;
        hdr.intReport.md.queue_occupancy = (bit<24>)meta.intQdepth;
        hdr.intReport.md.ingress_timestamp = (bit<64>)meta.intIngressTs * 1000;
        hdr.intReport.md.egress_timestamp = (bit<64>)meta.intEgressTs * 1000;

        // The truncated packet starts at the original IPv4 header.
        hdr.ethernet.setInvalid();
        truncate(INT_REPORT_BYTES);
    }

    table intWatch {
        key = { standard_metadata.egress_port: exact; }
        actions = { intPostcard; NoAction; }
        default_action = NoAction();
        size = INT_WATCH_SIZE;
    }

    // A report clone with no collector configured goes nowhere.
    action intDrop() {
        mark_to_drop(standard_metadata);
    }

    table intReport {
        actions = { intEncap; intDrop; }
        default_action = intDrop();
        size = 1;
    }
