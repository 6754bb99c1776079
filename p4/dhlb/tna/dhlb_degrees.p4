// DHLB's path degrees on Tofino (dhlb.p4, beside it): per origin ToR, the smallest load degree of the
// path through each of the four path slots. Included INSIDE the MyIngress control body (no
// include guard); it expects MAX_TORS and hdr.dhlb. Each register has a read action (data
// packets read all four) and a write action (a probe's second pass writes its slot's), so
// every packet touches each register once.
//
//   pathDegree0..3[MAX_TORS]  bit<8>   readDegree<k>.execute(tor) / writeDegree<k>.execute(origin)

    Register<bit<8>, bit<16>>(MAX_TORS) pathDegree0;
    Register<bit<8>, bit<16>>(MAX_TORS) pathDegree1;
    Register<bit<8>, bit<16>>(MAX_TORS) pathDegree2;
    Register<bit<8>, bit<16>>(MAX_TORS) pathDegree3;

    RegisterAction<bit<8>, bit<16>, bit<8>>(pathDegree0) readDegree0 = {
        void apply(inout bit<8> value, out bit<8> rv) { rv = value; }
    };
    RegisterAction<bit<8>, bit<16>, bit<8>>(pathDegree1) readDegree1 = {
        void apply(inout bit<8> value, out bit<8> rv) { rv = value; }
    };
    RegisterAction<bit<8>, bit<16>, bit<8>>(pathDegree2) readDegree2 = {
        void apply(inout bit<8> value, out bit<8> rv) { rv = value; }
    };
    RegisterAction<bit<8>, bit<16>, bit<8>>(pathDegree3) readDegree3 = {
        void apply(inout bit<8> value, out bit<8> rv) { rv = value; }
    };
    RegisterAction<bit<8>, bit<16>, bit<8>>(pathDegree0) writeDegree0 = {
        void apply(inout bit<8> value) { value = hdr.dhlb.minDegree; }
    };
    RegisterAction<bit<8>, bit<16>, bit<8>>(pathDegree1) writeDegree1 = {
        void apply(inout bit<8> value) { value = hdr.dhlb.minDegree; }
    };
    RegisterAction<bit<8>, bit<16>, bit<8>>(pathDegree2) writeDegree2 = {
        void apply(inout bit<8> value) { value = hdr.dhlb.minDegree; }
    };
    RegisterAction<bit<8>, bit<16>, bit<8>>(pathDegree3) writeDegree3 = {
        void apply(inout bit<8> value) { value = hdr.dhlb.minDegree; }
    };
