// Batched tiny ops (`backend/webgpu/batched.rs`): one workgroup runs a list of small float32
// elementwise ops and products one after another, each op's results stored before the next op
// starts (a storage barrier between ops), so that a chain of dependent tiny ops costs one
// dispatch instead of one each. The buffers are bound once per batch (distinct, at most 7).
// meta: [0] ops; from word 4 one instruction after another:
//   elementwise: [code | n << 8] [slots] [out offset] [a's words] [b's words]
//     code: the op table's index (254: a copy); slots: out | a << 4 | b << 8 | a mode << 12 |
//     b mode << 14. An operand's mode and words: 0 contiguous [offset]; 1 one element
//     broadcast [offset]; 2 a scalar [its bits] (also an absent operand); 3 a 2-D strided view
//     [offset, inner size, outer stride, inner stride] (a broadcast row, a transpose).
//   product (11 words): [255] [slots: out | a << 4 | b << 8] [rows | cols << 16] [k]
//     [out offset] [a offset] [a row stride] [a k stride] [b offset] [b k stride] [b col stride]
const WG = 256u;

/*{{BINDINGS}}*/

fn ld(s: u32, i: u32) -> f32 {
    switch s {
/*{{LOADS}}*/
        default: { return 0.0; }
    }
}

fn st(s: u32, i: u32, v: f32) {
    switch s {
/*{{STORES}}*/
        default: {}
    }
}

/// Element e of an operand whose words start at meta word p.
fn operand(mode: u32, s: u32, p: u32, e: u32) -> f32 {
    let o = m(p);
    if (mode == 0u) { return ld(s, o + e); }
    if (mode == 1u) { return ld(s, o); }
    if (mode == 2u) { return bitcast<f32>(o); }
    let inner = m(p + 1u);
    return ld(s, o + (e / inner) * m(p + 2u) + (e % inner) * m(p + 3u));
}

fn apply(code: u32, a: f32, b: f32) -> f32 {
    switch code {
/*{{CASES}}*/
        default: { return a; }
    }
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32) {
    var w = 4u;
    let ops = m(0u);
    for (var q = 0u; q < ops; q++) {
        let code = m(w) & 255u;
        let slots = m(w + 1u);
        let so = slots & 15u;
        let sa = (slots >> 4u) & 15u;
        let sb = (slots >> 8u) & 15u;
        if (code == 255u) {
            let rows = m(w + 2u) & 65535u;
            let cols = m(w + 2u) >> 16u;
            let k = m(w + 3u);
            let oo = m(w + 4u);
            for (var e = lid; e < rows * cols; e += WG) {
                let r = e / cols;
                let c = e % cols;
                var ia = m(w + 5u) + r * m(w + 6u);
                var ib = m(w + 8u) + c * m(w + 10u);
                var acc = 0.0;
                for (var t = 0u; t < k; t++) {
                    acc = fma(ld(sa, ia), ld(sb, ib), acc);
                    ia += m(w + 7u);
                    ib += m(w + 9u);
                }
                st(so, oo + e, acc);
            }
            w += 11u;
        } else {
            let n = m(w) >> 8u;
            let am = (slots >> 12u) & 3u;
            let bm = (slots >> 14u) & 3u;
            let oo = m(w + 2u);
            let ap = w + 3u;
            let bp = ap + select(1u, 4u, am == 3u);
            for (var e = lid; e < n; e += WG) {
                st(so, oo + e, apply(code, operand(am, sa, ap, e), operand(bm, sb, bp, e)));
            }
            w = bp + select(1u, 4u, bm == 3u);
        }
        storageBarrier();
    }
}
