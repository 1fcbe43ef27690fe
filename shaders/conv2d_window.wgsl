// Direct 2-D convolution for short weight rows (a first layer's 3·3·3 or 3·7·7) and depthwise
// layers: each invocation computes four consecutive output positions of one row for OCB output
// channels of one group. Per (input channel, kernel row) it loads the input row segment the four
// windows span once (SEG values: 4·SW + (KW − 1)·DW, zero outside the input) and takes KW taps
// from it, each a vec4 over the four positions times one weight per output channel. A
// workgroup's weights (its OCB channels × Cg·kh·kw) sit in workgroup memory, laid out so one
// read gives four output channels at one tap. The implicit GEMM (`conv2d.wgsl`) spends its
// fixed costs (origins, offset table, 64×64 stores) on one or two K steps at these sizes, and
// its 64-row tiles hold one useful row per depthwise group; here nothing is padded but OCB.
// `src/backend/webgpu/conv.rs` generates the unrolled holes.
// meta: [0] invocations (N·oh·⌈ow/4⌉), [1] O, [2] Og, [3] oh, [4] ow, [5] kh, [6] Cg, [7] H,
//       [8] W, [9] stride h, [10..12) padding in front (h, w), [12] dilation h, [13..17) input
//       strides (n, c, h, w), [17] weight offset, [18] input offset, [19] invocations per grid
//       row, [20] the weight's row stride, [21] ⌈ow/4⌉, [22] OCB blocks per group.
@group(0) @binding(1) var<storage, read_write> out: array</*{{OUT_T}}*/>;
@group(0) @binding(2) var<storage, read> w: array<f32>;
@group(0) @binding(3) var<storage, read> x: array<f32>;

const KW: u32 = /*{{KW}}*/u;
const OCB: u32 = /*{{OCB}}*/u;
// The weights: ws[k·OCB/4 + o/4] holds channels o..o+3 at tap k (OCB ≥ 4), else ws[k·OCB + o].
var<workgroup> ws: array</*{{WS_T}}*/, /*{{WS_LEN}}*/>;

fn ld(row: u32, xx: i32) -> f32 {
    if (u32(xx) < m(8u)) { return x[row + u32(xx) * m(16u)]; }
    return 0.0;
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let g = wg.z / m(22u);
    let o0 = (wg.z % m(22u)) * OCB;
    let og = m(2u);
    let taps = m(6u) * m(5u) * KW;
/*{{STAGE}}*/
    workgroupBarrier();
    let idx = wg.y * m(19u) + wg.x * 64u + t;
    if (idx >= m(0u)) { return; }
    let q = idx % m(21u);
    let r = idx / m(21u);
    let oy = r % m(3u);
    let n = r / m(3u);
    let ox0 = 4u * q;
    let xs0 = i32(ox0 * /*{{SW}}*/u) - i32(m(11u));
    let ys0 = i32(oy * m(9u)) - i32(m(10u));
    var xb = m(18u) + n * m(13u) + g * m(6u) * m(14u);
/*{{INIT}}*/
    for (var c = 0u; c < m(6u); c++) {
        for (var i = 0u; i < m(5u); i++) {
            let y = ys0 + i32(i * m(12u));
            if (u32(y) < m(7u)) {
                let row = xb + u32(y) * m(15u);
                let kb = (c * m(5u) + i) * KW;
/*{{TAPS}}*/
            }
        }
        xb += m(14u);
    }
    let ob = (n * m(1u) + g * og + o0) * m(3u) * m(4u) + oy * m(4u) + ox0;
/*{{STORE}}*/
}
