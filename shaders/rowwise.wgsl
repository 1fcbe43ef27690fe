// Row-wise NN kernels (softmax, log_softmax, layer_norm, rms_norm, causal softmax, the softmax
// backward rules): one 256-invocation workgroup per row. Statistics (max, Σ, mean, variance) are
// workgroup reductions over strided reads; the last pass writes the row. float32 only.
// meta: [0] rows, [1] outer rank, [2] inner rank, [3] row length N, [4] input offset,
//       [5] workgroups per grid row, [6] eps (f32 bits), [7] weight offset, [8..16) outer shape,
//       [16..24) outer input strides, [24..32) inner shape, [32..40) inner input strides,
//       [40..48) outer output strides, [48..56) inner output strides, [56] bias offset,
//       [57] gradient offset (backward rules), [58] causal softmax's query count.
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> inp: array<f32>;
/*{{BINDINGS}}*/

var<workgroup> red: array<f32, 256>;

// Σ of `v` over the workgroup (every invocation gets it).
fn wg_sum(v: f32, lid: u32) -> f32 {
    red[lid] = v;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (lid < s) { red[lid] = red[lid] + red[lid + s]; }
        workgroupBarrier();
    }
    let r = red[0];
    workgroupBarrier();
    return r;
}

// An invocation's share of a row's sum as a cascade (bench/KERNELS.md, "Summation order"):
// values into `block`, every 32nd `block` into `group`, every 1024th value's `group` into
// `total`, so a long row's sum rounds about log-many times per value, not N / 256 times.
struct Cascade { total: f32, group: f32, block: f32, taken: u32 }

fn cascade_add(c: ptr<function, Cascade>, x: f32) {
    (*c).block += x;
    (*c).taken += 1u;
    if (((*c).taken & 31u) == 0u) {
        (*c).group += (*c).block;
        (*c).block = 0.0;
        if (((*c).taken & 1023u) == 0u) {
            (*c).total += (*c).group;
            (*c).group = 0.0;
        }
    }
}

fn cascade_sum(c: Cascade) -> f32 {
    return (c.total + c.group) + c.block;
}

// Max over the workgroup, NaN propagating (-inf for an empty row).
fn wg_max(v: f32, lid: u32) -> f32 {
    red[lid] = v;
    workgroupBarrier();
    for (var s = 128u; s > 0u; s >>= 1u) {
        if (lid < s) {
            let a = red[lid];
            let b = red[lid + s];
            if (!isnan_f32(a) && (isnan_f32(b) || b > a)) { red[lid] = b; }
        }
        workgroupBarrier();
    }
    let r = red[0];
    workgroupBarrier();
    return r;
}

// Input and output offsets of element j of the row starting at (bi, bo).
fn offsets(bi: u32, bo: u32, j: u32) -> vec2<u32> {
    var r = j;
    var oi = bi;
    var oo = bo;
    for (var d = m(2u); d > 0u; d--) {
        let s = m(23u + d);
        let c = r % s;
        r /= s;
        oi += c * m(31u + d);
        oo += c * m(47u + d);
    }
    return vec2<u32>(oi, oo);
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = wg.y * m(5u) + wg.x;
    if (row >= m(0u)) { return; }
    var rem = row;
    var bi = m(4u);
    var bo = 0u;
    for (var d = m(1u); d > 0u; d--) {
        let s = m(7u + d);
        let c = rem % s;
        rem /= s;
        bi += c * m(15u + d);
        bo += c * m(39u + d);
    }
    let n = m(3u);
    let eps = bitcast<f32>(m(6u));
/*{{BODY}}*/
}
