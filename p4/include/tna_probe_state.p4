// MyIngress state shared by the TNA programs with probes (hula/tna/hula.p4, dhlb/tna/dhlb.p4). Included
// INSIDE the MyIngress control body (no include guard). It expects MAX_PORTS, FLOWLET_SLOTS,
// FLOWLET_GAP and `meta` with utilEpoch (this packet's window number), utilBytes (bytes to
// add: 0 for a probe, which only reads) and now (ns >> 10).
//
//   linkUtil[MAX_PORTS]        util_window_t {epoch, bytes} (include/tna_common.p4): bytes sent
//                              out of each port in the current window, one RegisterAction
//                              accountLink.execute(port) -> bytes so far this window
//   flowletTime[FLOWLET_SLOTS] bit<32> time of the slot's last packet;
//                              touchFlowlet.execute(slot) -> 1 when the gap passed (new flowlet)

    Register<util_window_t, PortId_t>(MAX_PORTS) linkUtil;
    Register<bit<32>, bit<12>>(FLOWLET_SLOTS) flowletTime;

    RegisterAction<util_window_t, PortId_t, bit<32>>(linkUtil) accountLink = {
        void apply(inout util_window_t value, out bit<32> rv) {
            if (value.epoch == meta.utilEpoch) {
                value.bytes = value.bytes + meta.utilBytes;
            } else {
                value.bytes = meta.utilBytes;
            }
            value.epoch = meta.utilEpoch;
            rv = value.bytes;
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
