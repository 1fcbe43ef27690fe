// 2-D convolution as an implicit GEMM: the register-tiled matmul of `matmul_tiled.wgsl` whose `b`
// tile is gathered from the convolution's input in the load stage, zero outside it (padding), so
// no im2col columns are written or read. One chunk of images (forward: one image) and group per
// wg.z. Two products:
// - forward: M = a group's output channels, N = output positions oh·ow, K = Cg·kh·kw; `a` is the
//   weight (row-major); `b[k][l]` the input under kernel position k at output position l
//   (`gather`), four positions per load; the output lands in NCHW.
// - weight gradient (`WGRAD`): M = a group's output channels, N = Cg·kh·kw, K = oh·ow; `a` is
//   the output's gradient of the image (row-major, rows of oh·ow); `b` is read along K
//   (`gather_k`: four consecutive output positions at one kernel position); each chunk of
//   images (meta 29; their products summed in registers) and slice of K (meta 27–28) writes its
//   own `[Og, Cg·kh·kw]` block, summed afterwards.
// `src/backend/webgpu/conv.rs` chooses the tile and generates the holes (`matmul::holes_with`).
// meta: [0] M, [1] N, [2] K, [3] groups, [4] `a` offset, [5] input offset, [6] kh·kw, [7] kw,
//       [8] ow, [9] H, [10] W, [11..13) stride (h, w), [13..15) padding in front (h, w),
//       [15..17) dilation (h, w), [17..21) input strides (n, c, h, w), [21] Cg,
//       [22] BK / (kh·kw) (forward) or BK / ow (weight gradient), [23] the remainder,
//       [24] `a`'s stride between images (weight gradient; the forward's weight is shared),
//       [25] `a`'s row stride (forward: Cg·kh·kw rounded up to 4, its weight zero-padded; the
//       weight gradient: oh·ow), [26] the columns `b` has (the weight gradient's N is Cg·kh·kw
//       rounded up to 4, the columns past it computed as zeros and not read), [27] slices of K
//       per image (the weight gradient's split: wg.z = (chunk · slices + slice) · groups +
//       group; 1 forward), [28] K per slice (a multiple of BK; K forward), [29] images per
//       chunk (1 forward), [30] images.
// Each `b` load keeps its K index as a pair — (channel, kernel position) forward, (row, column)
// of the output position for the weight gradient — and advances it by BK per step (meta 22,
// 23), so the K loop divides nothing.
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> x: array<f32>;

const BM = /*{{BM}}*/u;
const BN = /*{{BN}}*/u;
const BK = /*{{BK}}*/u;

var<workgroup> As: array<vec4<f32>, /*{{AS_LEN}}*/>;
var<workgroup> Bs: array<vec4<f32>, /*{{BS_LEN}}*/>;
// The dilated (row, column) offset of each kernel position r < kh·kw (at most 64; forward).
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

// Forward: column (c, r) of `b` (channel c, kernel position r whose dilated offset is `d`) at
// four output positions whose origins are (gy, gx).
fn gather(c: u32, d: vec2<i32>, gy: vec4<i32>, gx: vec4<i32>, xb: u32) -> vec4<f32> {
    let cb = xb + c * m(18u);
    let y = gy + vec4<i32>(d.x);
    let xx = gx + vec4<i32>(d.y);
    return vec4<f32>(px(cb, y.x, xx.x), px(cb, y.y, xx.y), px(cb, y.z, xx.z), px(cb, y.w, xx.w));
}

// Weight gradient: the input values that kernel position `d` (its dilated offset less the
// padding) meets at four consecutive output positions from (oy, ox), channel base `cb`.
fn gather_k(cb: u32, d: vec2<i32>, oy: u32, ox: u32) -> vec4<f32> {
    var v = vec4<f32>(0.0);
    var y = oy;
    var xx = ox;
    for (var e = 0u; e < 4u; e++) {
        v[e] = px(cb, i32(y * m(11u)) + d.x, i32(xx * m(12u)) + d.y);
        xx += 1u;
        if (xx >= m(8u)) {
            xx = 0u;
            y += 1u;
        }
    }
    return v;
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
    let zi = wg.z / m(3u);
    let chunk = zi / m(27u);
    let grp = wg.z - zi * m(3u);
    let ars = m(25u);
    let aks = 1u;
    let bks = 0u;
    let bcs = 0u;
    let kbeg = (zi - chunk * m(27u)) * m(28u);
    let kend = min(K, kbeg + m(28u));
/*{{ACC}}*/
    // The chunk's images (one forward), their products summed in the accumulators.
    let img1 = min((chunk + 1u) * m(29u), m(30u));
    for (var img = chunk * m(29u); img < img1; img++) {
    let xb = m(5u) + img * m(17u) + grp * m(21u) * m(18u);
/*{{SETUP}}*/
/*{{GATHER}}*/
/*{{PRE}}*/
    for (var k0 = kbeg; k0 < kend; k0 += BK) {
/*{{STEP}}*/
    }
    }
    let obase = wg.z * M * (N >> 2u) + (n0 >> 2u);
/*{{STORE}}*/
}
