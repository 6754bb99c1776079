// Deparsers shared by the TNA programs with probes (hula/tna/hula.p4, dhlb/tna/dhlb.p4). Include after
// the program's headers_t, ig_metadata_t (with `pass`, a probe_pass_t) and eg_metadata_t.
// IngressDeparser resubmits a probe's first pass with its probe_pass_t (RESUBMIT_PROBE,
// include/tna_common.p4) and recomputes the IPv4 checksum; EgressDeparser emits the headers.
// Checked against p4lang/p4c backends/tofino/bf-p4c/p4include tofino1_base.p4 at 4d9bc819
// (Resubmit.emit, Checksum.update).
#ifndef _P4LAB_TNA_PROBE_DEPARSERS_P4_
#define _P4LAB_TNA_PROBE_DEPARSERS_P4_

control IngressDeparser(packet_out pkt, inout headers_t hdr, in ig_metadata_t meta,
                        in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    Checksum() ipv4Checksum;
    Resubmit(RESUBMIT_PROBE) resubmit;
    apply {
        if (ig_dprsr_md.resubmit_type == RESUBMIT_PROBE) {
            resubmit.emit(meta.pass);
        }
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

#endif  // _P4LAB_TNA_PROBE_DEPARSERS_P4_
