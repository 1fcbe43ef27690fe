// Attention `out = softmax(q kᵀ · scale) v` in one pass over the keys (online softmax): the
// `L × S` scores and probabilities never leave the workgroup. One invocation owns one query
// row: its `q` (scaled) and its output accumulator live in registers (`E/4` and `Ev/4` vec4,
// unrolled by the generator), keys and values are staged BC rows at a time in workgroup memory
// and read by every invocation at the same address (broadcast). For each chunk the invocation
// writes its BC scores to `ss` (its own column), rescales its accumulator once by the new
// running maximum, then adds `p · v` for each key. Causal (`m(4u)`): query `i` sees keys `j ≤ i`
// (top-left aligned, as PyTorch's `is_causal`); a workgroup stops after the chunk holding its
// last row's diagonal.
// meta: [0] L, [1] S, [3] H (inner batch count),
//       [4] causal, [5] scale (f32 bits), then per operand q, k, v at [7], [11], [15]: offset,
//       outer batch stride, inner batch stride, row stride (in vec4, so all multiples of 4).
//       `out` is contiguous `[batch, L, Ev]`; `lse` `[batch, L]` gets each row's log-sum-exp.
//       With a mask (added to the scaled scores, as in attention_tiled.wgsl): [19] its offset,
//       [20..24) its strides (outer and inner batch, row, column; elements, 0 where broadcast).
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> lse: array<f32>;
@group(0) @binding(3) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> k: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> v: array<vec4<f32>>;

/*{{MASK}}*/
const BR: u32 = /*{{BR}}*/u;
const BC: u32 = /*{{BC}}*/u;
const E4: u32 = /*{{E4}}*/u;
const EV4: u32 = /*{{EV4}}*/u;
// A masked score: finite, so that no `inf - inf` appears; exp of it minus any real maximum is 0.
const NEG: f32 = -3.0e38;

var<workgroup> ks: array<vec4<f32>, BC * E4>;
var<workgroup> vs: array<vec4<f32>, BC * EV4>;
var<workgroup> ss: array<f32, BC * BR>;

fn base(o: u32, b: u32) -> u32 {
    let h = m(3u);
    return m(o) + (b / h) * m(o + 1u) + (b % h) * m(o + 2u);
}

@compute @workgroup_size(BR)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let l = m(0u);
    let s_len = m(1u);
    let b = wg.y;
    let r0 = wg.x * BR;
    let row = min(r0 + t, l - 1u);
    let scale = bitcast<f32>(m(5u));
    let causal = m(4u) != 0u;
    let qb = base(7u, b) + row * m(10u);
    let kb = base(11u, b);
    let vb = base(15u, b);
/*{{MASK_INIT}}*/
/*{{INIT}}*/
    var mx = NEG;
    var sum = 0.0;
    // Keys this workgroup reads: all, or (causal) up to its last row.
    var keys = s_len;
    if (causal) { keys = min(s_len, r0 + BR); }
    for (var c0 = 0u; c0 < keys; c0 += BC) {
        workgroupBarrier();
        for (var i = t; i < BC * E4; i += BR) {
            let c = c0 + i / E4;
            var x = vec4<f32>(0.0);
            if (c < s_len) { x = k[kb + c * m(14u) + i % E4]; }
            ks[i] = x;
        }
        for (var i = t; i < BC * EV4; i += BR) {
            let c = c0 + i / EV4;
            var x = vec4<f32>(0.0);
            if (c < s_len) { x = v[vb + c * m(18u) + i % EV4]; }
            vs[i] = x;
        }
        workgroupBarrier();
        var cmax = NEG;
        for (var c = 0u; c < BC; c++) {
            let j = c0 + c;
            let kc = c * E4;
            var d = vec4<f32>(0.0);
/*{{DOT}}*/
            var sc = d.x + d.y + d.z + d.w;
/*{{MASK_ADD}}*/
            if (j >= s_len || (causal && j > row)) { sc = NEG; }
            ss[c * BR + t] = sc;
            cmax = max(cmax, sc);
        }
        let mn = max(mx, cmax);
        let alpha = exp(mx - mn);
        mx = mn;
        sum *= alpha;
/*{{RESCALE}}*/
        for (var c = 0u; c < BC; c++) {
            let p = exp(ss[c * BR + t] - mn);
            sum += p;
            let vc = c * EV4;
/*{{PV}}*/
        }
    }
    if (r0 + t < l) {
        let inv = 1.0 / sum;
        let ob = (b * l + r0 + t) * EV4;
        lse[b * l + r0 + t] = mx + log(sum);
/*{{STORE}}*/
    }
}
