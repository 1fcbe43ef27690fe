// Attention in one pass over the keys, register-tiled: a workgroup of 16×16 threads owns 64
// query rows and walks the keys 64 at a time. Per key block it computes the 64×64 scores as a
// small matmul (`q` and `k` staged 16 head columns at a time, each thread 4×4 scores in
// registers), takes each row's running maximum across the 16 threads sharing the row (partial
// maxima through `red`), writes the probabilities to `ps`, rescales its output accumulator once
// and adds `p · v` (values staged 16 keys at a time; each thread 4 rows × 4·NJ columns). Each
// row's sum is gathered while `p` is read back, so no second reduction is needed. Thread
// (tx, ty) owns rows 4·ty + i and score columns 4·tx + j; output columns 4·tx + 64·jj + c.
// Nothing of size L × S leaves the workgroup. `src/backend/webgpu/attention.rs` generates the
// unrolled holes and checks E (a multiple of 16) and Ev (NJ·64).
// meta: as attention.wgsl ([0] L, [1] S, [3] H, [4] causal, [5] scale bits, q/k/v at 7/11/15:
//       offset, outer and inner batch strides, row stride, in vec4). `lse` gets each row's
//       log-sum-exp. With a mask (added to the scaled scores): [19] its offset, [20..24) its
//       strides (outer and inner batch, row, column; elements, 0 where broadcast).
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> lse: array<f32>;
@group(0) @binding(3) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> k: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> v: array<vec4<f32>>;

/*{{MASK}}*/
const E4: u32 = /*{{E4}}*/u;
const EV4: u32 = /*{{EV4}}*/u;
const NEG: f32 = -3.0e38;

// Staged operands: `q` then `k` columns (qs[e·16 + r/4] holds rows r..r+3 of head column e;
// ks likewise for keys), or 16 rows of `v` (row-major, EV4 vec4 each).
var<workgroup> st: array<vec4<f32>, 512>;
// Probabilities, transposed: ps[c·16 + r/4] holds rows r..r+3 of key c.
var<workgroup> ps: array<vec4<f32>, 1024>;
// Partial row maxima: red[r·16 + tx].
var<workgroup> red: array<f32, 1024>;

fn base(o: u32, b: u32) -> u32 {
    let h = m(3u);
    return m(o) + (b / h) * m(o + 1u) + (b % h) * m(o + 2u);
}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    let l = m(0u);
    let s_len = m(1u);
    let causal = m(4u) != 0u;
    let scale = bitcast<f32>(m(5u));
    let tx = lid.x;
    let ty = lid.y;
    let b = wg.y;
    let r0 = wg.x * 64u;
    let qb = base(7u, b);
    let kb = base(11u, b);
    let vb = base(15u, b);
    // This thread's load of a staged `q`/`k` chunk: row (key) t/4, head quad t%4.
    let lr = t >> 2u;
    let lq = t & 3u;
    let qrow = qb + min(r0 + lr, l - 1u) * m(10u) + lq;
/*{{MASK_INIT}}*/
/*{{INIT}}*/
    var keys = s_len;
    if (causal) { keys = min(s_len, r0 + 64u); }
    for (var c0 = 0u; c0 < keys; c0 += 64u) {
/*{{ZERO}}*/
        let key = c0 + lr;
        let krow = kb + min(key, s_len - 1u) * m(14u) + lq;
        // Each chunk's loads are issued before the previous chunk's FMAs (prefetch).
        var qv = q[qrow];
        var kv = k[krow];
        for (var e0 = 0u; e0 < E4; e0 += 4u) {
            if (key >= s_len) { kv = vec4<f32>(0.0); }
            workgroupBarrier();
            st[(4u * lq + 0u) * 16u + (lr >> 2u)][lr & 3u] = qv.x;
            st[(4u * lq + 1u) * 16u + (lr >> 2u)][lr & 3u] = qv.y;
            st[(4u * lq + 2u) * 16u + (lr >> 2u)][lr & 3u] = qv.z;
            st[(4u * lq + 3u) * 16u + (lr >> 2u)][lr & 3u] = qv.w;
            st[256u + (4u * lq + 0u) * 16u + (lr >> 2u)][lr & 3u] = kv.x;
            st[256u + (4u * lq + 1u) * 16u + (lr >> 2u)][lr & 3u] = kv.y;
            st[256u + (4u * lq + 2u) * 16u + (lr >> 2u)][lr & 3u] = kv.z;
            st[256u + (4u * lq + 3u) * 16u + (lr >> 2u)][lr & 3u] = kv.w;
            workgroupBarrier();
            if (e0 + 4u < E4) {
                qv = q[qrow + e0 + 4u];
                kv = k[krow + e0 + 4u];
            }
/*{{SCORES}}*/
        }
/*{{VLOAD}}*/
/*{{SOFTMAX}}*/
        for (var cc0 = 0u; cc0 < 64u; cc0 += 16u) {
            workgroupBarrier();
/*{{VSTAGE}}*/
            workgroupBarrier();
            if (cc0 + 16u < 64u) {
/*{{VNEXT}}*/
            }
/*{{PV}}*/
        }
    }
/*{{STORE}}*/
}
