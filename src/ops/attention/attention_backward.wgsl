// Attention's backward in two register-tiled kernels that recompute the probabilities from the
// forward's row log-sum-exps and never write anything of size L × S (FlashAttention-2's
// backward, less its float atomics, which WGSL lacks: one kernel per gradient owner).
// - `KV` (a workgroup per 64 keys of a head): walks the query blocks that see its keys; per
//   block the 64×64 transposed probabilities `Pᵀ = exp(K Qᵀ·scale + mask − lse)`, `dV += Pᵀ dO`,
//   `dPᵀ = V dOᵀ`, `dSᵀ = Pᵀ ⊙ (dPᵀ − D)` and `dK += dSᵀ Q` (scaled once at the end).
// - `Q` (a workgroup per 64 queries): walks the key blocks its queries see; per block
//   `P = exp(Q Kᵀ·scale + mask − lse)`, `dP = dO Vᵀ`, `dS = P ⊙ (dP − D)`, `dQ += dS K`.
// `D` is each query row's `dO · O` (the softmax backward's row dot). Each product is the
// forward kernel's (`attention_tiled.wgsl`): thread (tx, ty) holds a 4×4 block of the 64×64
// tile (rows 4·ty + i, columns 4·tx + j), operands staged 16 columns at a time (`COLS`); the
// probabilities (then `dS`) go to `ps` transposed and multiply 16 staged rows at a time
// (`ROWS`: rows 4·ty + i, columns 4·tx + 64·jj). `src/backend/webgpu/attention_backward.rs`
// generates the holes.
// meta: [0] L, [1] S, [3] H (inner batch count), [4] causal, [5] scale bits; q, k, v at 7, 11,
//       15 and the output's gradient `g` at 24 (offset, outer and inner batch strides, row
//       stride; vec4 units); with a mask [19] its offset, [20..24) its strides (elements);
//       [28] `lse` offset, [29] `D` offset (elements, rows contiguous [batch, L]); [30] where
//       `dV` starts in `out` (vec4; `KV`: `out` is dK [batch, S, E] then dV [batch, S, Ev]).
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> k: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> v: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> g: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> lse: array<f32>;
@group(0) @binding(7) var<storage, read> dsum: array<f32>;

/*{{MASK}}*/
const E4: u32 = /*{{E4}}*/u;
const EV4: u32 = /*{{EV4}}*/u;

// Staged operands: 16 columns of two 64-row operands (st[e·16 + r/4] holds rows r..r+3 of
// column e; the second operand from 256), or 16 rows of one (row-major).
var<workgroup> st: array<vec4<f32>, 512>;
// The probabilities, then dS, transposed for `ROWS`: ps[c·16 + r/4] holds rows r..r+3 of
// column c.
var<workgroup> ps: array<vec4<f32>, 1024>;

fn base(o: u32, b: u32) -> u32 {
    let h = m(3u);
    return m(o) + (b / h) * m(o + 1u) + (b % h) * m(o + 2u);
}

// Each query row's statistic (`lse` or `D`) for four rows, clamped to the last row.
fn rows4(x: u32, b: u32, r: vec4<u32>) -> vec4<f32> {
    let l = m(0u);
    let o = m(x) + b * l;
    let c = min(r, vec4<u32>(l - 1u));
    if (x == 28u) {
        return vec4<f32>(lse[o + c.x], lse[o + c.y], lse[o + c.z], lse[o + c.w]);
    }
    return vec4<f32>(dsum[o + c.x], dsum[o + c.y], dsum[o + c.z], dsum[o + c.w]);
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
    let qb = base(7u, b);
    let kb = base(11u, b);
    let vb = base(15u, b);
    let gb = base(24u, b);
    // This thread's load of a staged 16-column chunk: row t/4, quad t%4.
    let lr = t >> 2u;
    let lq = t & 3u;
/*{{MASK_INIT}}*/
/*{{BODY}}*/
}
