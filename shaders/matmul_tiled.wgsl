// Register-tiled float32 matmul: a BM×BN output tile per workgroup of 16×16 threads, each thread
// TM×TN outputs held in vec4 registers (named, never a runtime-indexed array, so nothing spills),
// K staged BK at a time through workgroup memory, vec4 loads from global memory. STEP is one K
// step: load, stage into workgroup memory, barrier, FMAs, barrier; with prefetch, PRE loads the
// first step into registers and each step loads the next one before its FMAs; double-buffered,
// each step computes from one tile and stages the next step into the other (one barrier).
// `src/backend/webgpu/matmul.rs` chooses the tile, checks that the operands can be read as vec4
// (else the 16×16 kernel in matmul.wgsl runs) and generates the unrolled holes.
// meta (element units, as matmul.wgsl): [0] M, [1] N, [2] K, [3] batch rank, [4] offset a,
//       [5] offset b, [6] a row stride, [7] a k stride, [8] b k stride, [9] b col stride,
//       [10] causal structure (`Tri`: 1 only outputs on or below the diagonal are needed, a tile
//       above it stores zeros; 2 `a` is 0 above its diagonal, K stops after the tile's last
//       row; 3 `a` is 0 below it, K starts at the tile's first row), [12..16) batch shape,
//       [16..20) a batch strides, [20..24) b batch strides.
// Thread (tx, ty) owns output rows 4 * (ty + 16 i) + r and columns 4 * (tx + 16 j) + c: vec4
// reads of the staged tiles are contiguous across a warp, and so are the output stores.
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> b: array<vec4<f32>>;

const BM = /*{{BM}}*/u;
const BN = /*{{BN}}*/u;
const BK = /*{{BK}}*/u;

// As[k * BM/4 + m/4] holds rows m..m+3 of column k of the A tile; Bs[k * BN/4 + n/4] likewise.
var<workgroup> As: array<vec4<f32>, /*{{AS_LEN}}*/>;
var<workgroup> Bs: array<vec4<f32>, /*{{BS_LEN}}*/>;

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
    var rem = wg.z;
    var oa = m(4u);
    var ob = m(5u);
    for (var d = m(3u); d > 0u; d--) {
        let s = m(11u + d);
        let c = rem % s;
        rem /= s;
        oa += c * m(15u + d);
        ob += c * m(19u + d);
    }
    // Offsets and the strided dims in vec4 units (the host checked divisibility by 4).
    let oa4 = oa >> 2u;
    let ob4 = ob >> 2u;
    let ars = m(6u);
    let aks = m(7u);
    let bks = m(8u);
    let bcs = m(9u);
    let tri = m(10u);
    var kbeg = 0u;
    var kend = K;
    if (tri == 1u && n0 >= m0 + BM) { kend = 0u; }
    if (tri == 2u) { kend = min(K, m0 + BM); }
    if (tri == 3u) { kbeg = (m0 / BK) * BK; }
/*{{ACC}}*/
/*{{PRE}}*/
    for (var k0 = kbeg; k0 < kend; k0 += BK) {
/*{{STEP}}*/
    }
    let obase = wg.z * M * (N >> 2u) + (n0 >> 2u);
/*{{STORE}}*/
}
