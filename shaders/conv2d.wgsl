// 2-D convolution as an implicit GEMM: the register-tiled matmul of `matmul_tiled.wgsl` with
// M = output channels of a group (rows of the weight), N = output positions oh·ow, K = Cg·kh·kw,
// one image and group per wg.z. `a` is the weight, read as the tiled kernel reads a row-major
// `a`; the `b` tile is gathered from the input in the load stage (`gather`), zero outside it
// (padding), so no im2col columns are written or read. `src/backend/webgpu/conv.rs` chooses the
// tile and generates the holes with `matmul::holes_with`.
// meta: [0] M (Og), [1] N (oh·ow), [2] K (Cg·kh·kw), [3] groups, [4] weight offset,
//       [5] input offset, [6] kh·kw, [7] kw, [8] ow, [9] H, [10] W, [11..13) stride (h, w),
//       [13..15) padding in front (h, w), [15..17) dilation (h, w), [17..21) input strides
//       (n, c, h, w), [21] Cg, [22] BK / (kh·kw), [23] BK % (kh·kw).
// Each `b` load keeps its K index as (channel, kernel position) and advances it by BK per step
// (meta 22, 23), so the K loop divides nothing; the kernel positions' offsets come from `ktab`.
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> x: array<f32>;

const BM = /*{{BM}}*/u;
const BN = /*{{BN}}*/u;
const BK = /*{{BK}}*/u;

var<workgroup> As: array<vec4<f32>, /*{{AS_LEN}}*/>;
var<workgroup> Bs: array<vec4<f32>, /*{{BS_LEN}}*/>;
// The dilated (row, column) offset of each kernel position r < kh·kw (at most 64).
var<workgroup> ktab: array<vec2<i32>, 64>;

// The input position (row, column) that output position `p` reads at kernel offset (0, 0).
fn origin(p: u32) -> vec2<i32> {
    let oy = p / m(8u);
    let ox = p - oy * m(8u);
    return vec2<i32>(i32(oy * m(11u)) - i32(m(13u)), i32(ox * m(12u)) - i32(m(14u)));
}

// One input value, 0 outside the input (the padding).
fn px(cb: u32, y: i32, xx: i32) -> f32 {
    if (u32(y) < m(9u) && u32(xx) < m(10u)) {
        return x[cb + u32(y) * m(19u) + u32(xx) * m(20u)];
    }
    return 0.0;
}

// Column (c, r) of the implicit `b` (channel c, kernel offset r = i·kw + j, whose dilated
// offset is `d`) at four output positions whose origins are (gy, gx).
fn gather(c: u32, d: vec2<i32>, gy: vec4<i32>, gx: vec4<i32>, xb: u32) -> vec4<f32> {
    let cb = xb + c * m(18u);
    let y = gy + vec4<i32>(d.x);
    let xx = gx + vec4<i32>(d.y);
    return vec4<f32>(px(cb, y.x, xx.x), px(cb, y.y, xx.y), px(cb, y.z, xx.z), px(cb, y.w, xx.w));
}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    let M = m(0u);
    let N = m(1u);
    let K = m(2u);
    let tx = lid.x;
    let ty = lid.y;
    let m0 = wg.y * BM;
    let n0 = wg.x * BN;
    let img = wg.z / m(3u);
    let grp = wg.z - img * m(3u);
    let oa4 = (m(4u) + grp * M * K) >> 2u;
    let xb = m(5u) + img * m(17u) + grp * m(21u) * m(18u);
    let ars = K;
    let aks = 1u;
    let bks = 0u;
    let bcs = 0u;
    let kbeg = 0u;
    let kend = K;
    if (t < m(6u)) {
        let i = t / m(7u);
        ktab[t] = vec2<i32>(i32(i * m(15u)), i32((t - i * m(7u)) * m(16u)));
    }
    workgroupBarrier();
/*{{ACC}}*/
/*{{GATHER}}*/
/*{{PRE}}*/
    for (var k0 = kbeg; k0 < kend; k0 += BK) {
/*{{STEP}}*/
    }
    let obase = wg.z * M * (N >> 2u) + (n0 >> 2u);
/*{{STORE}}*/
}
