// Inclusive scan along contiguous rows (cumsum, cumprod, logcumsumexp; cummax/cummin write the
// index of the running extreme): one 256-invocation workgroup per row walks the row in chunks of
// 256, scans each chunk in workgroup memory (Hillis–Steele) and carries the chunk's total on.
// meta: [0] rows, [1] row length n, [2] input offset, [5] workgroups per grid row.
@group(0) @binding(1) var<storage, read_write> out: array</*{{OUT}}*/>;
@group(0) @binding(2) var<storage, read> inp: array</*{{T}}*/>;

// A partial result: the value and, for cummax/cummin, its index (-1: the identity).
struct P { v: /*{{T}}*/, i: i32 }

var<workgroup> sv: array</*{{T}}*/, 256>;
var<workgroup> si: array<i32, 256>;

// `a` covers earlier elements than `b`.
fn combine(a: P, b: P) -> P {
/*{{COMBINE}}*/
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let row = wg.y * m(5u) + wg.x;
    if (row >= m(0u)) { return; }
    let n = m(1u);
    let base = row * n;
    let identity = P(/*{{IDENTITY}}*/, -1);
    var carry = identity;
    for (var c = 0u; c < n; c += 256u) {
        let j = c + lid;
        var p = identity;
        if (j < n) { p = P(inp[m(2u) + base + j], i32(j)); }
        sv[lid] = p.v;
        si[lid] = p.i;
        workgroupBarrier();
        for (var s = 1u; s < 256u; s <<= 1u) {
            var q = P(sv[lid], si[lid]);
            if (lid >= s) { q = combine(P(sv[lid - s], si[lid - s]), q); }
            workgroupBarrier();
            sv[lid] = q.v;
            si[lid] = q.i;
            workgroupBarrier();
        }
        let r = combine(carry, P(sv[lid], si[lid]));
        if (j < n) { out[base + j] = /*{{WRITE}}*/; }
        carry = combine(carry, P(sv[255u], si[255u]));
        workgroupBarrier();
    }
}
