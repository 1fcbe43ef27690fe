// Reduction kernel: one 256-invocation workgroup per output element. Each invocation folds a
// strided subset of the reduced elements into an accumulator, then a tree in workgroup memory
// merges the 256. CASCADE: an invocation folds its elements in blocks of 32 and its blocks in
// groups of 32, so a float sum of n elements rounds about log-many times per element, not
// n / 256 times, as PyTorch's cascade sum (bench/KERNELS.md, "Summation order"). Multi-phase
// ops run the loop once a phase, each phase seeing the one before's result as `first`: var/std
// the mean, the mean refined by the mean deviation from it, then the squared deviations;
// logsumexp the max, then Σ exp.
// An accumulator carries the index of an element it holds (argmax/argmin keep the first
// occurrence, whatever order the tree merges in), or EMPTY for none.
// meta: [0] outputs, [1] outer rank, [2] inner rank, [3] reduced count R, [4] input offset,
//       [5] workgroups per grid row, [6] param (f32 bits), [8..16) outer shape,
//       [16..24) outer strides, [24..32) inner shape, [32..40) inner strides.
// A fused elementwise prologue reads leaves in0.. instead of `inp` (the strides above are leaf
// 0's): [40 + k] offset of leaf k >= 1, [48 + q] scalar q, [56 + 16(k-1) ..) outer and
// [64 + 16(k-1) ..) inner strides of leaf k >= 1.
@group(0) @binding(1) var<storage, read_write> out: array</*{{OUT}}*/>;
/*{{INPUTS}}*/

const EMPTY: u32 = 0xffffffffu;
const PASSES: u32 = /*{{PASSES}}*/u;

struct Acc { v: /*{{A}}*/, i: u32 }

var<workgroup> part: array<Acc, 256>;

fn param() -> f32 { return bitcast<f32>(m(6u)); }

// One element `x` (index j) as an accumulator.
fn lift(x: /*{{T}}*/, j: u32, phase: u32, first: /*{{A}}*/) -> Acc {
/*{{LIFT}}*/
}

// Merges two non-empty accumulators.
fn merge(a: Acc, b: Acc, phase: u32) -> Acc {
/*{{MERGE}}*/
}

fn combine(a: Acc, b: Acc, phase: u32) -> Acc {
    if (a.i == EMPTY) { return b; }
    if (b.i == EMPTY) { return a; }
    return merge(a, b, phase);
}

// A phase's result (given the one before, `first`), as the next phase sees it as `first`.
fn between(a: Acc, count: u32, phase: u32, first: /*{{A}}*/) -> /*{{A}}*/ {
/*{{BETWEEN}}*/
}

// The stored result.
fn finish(a: Acc, first: /*{{A}}*/, count: u32) -> /*{{OUT}}*/ {
/*{{FINISH}}*/
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let o = wg.y * m(5u) + wg.x;
    if (o >= m(0u)) { return; }
/*{{BASE}}*/
    let count = m(3u);
    var first = /*{{A}}*/(0);
    var acc = Acc(/*{{A}}*/(/*{{IDENT}}*/), EMPTY);
    for (var phase = 0u; phase < PASSES; phase++) {
        // An invocation's elements in a cascade (`CASCADE`): each into `block`, each 32nd block
        // into `group`, each 32nd group into `acc`.
        acc = Acc(/*{{A}}*/(/*{{IDENT}}*/), EMPTY);
        var group = acc;
        var block = acc;
        var taken = 0u;
        for (var j = lid; j < count; j += 256u) {
/*{{OFFSETS}}*/
            block = combine(block, lift(/*{{LOAD}}*/, j, phase, first), phase);
            taken++;
            if ((taken & 31u) == 0u) {
                group = combine(group, block, phase);
                block = Acc(/*{{A}}*/(/*{{IDENT}}*/), EMPTY);
                if ((taken & 1023u) == 0u) {
                    acc = combine(acc, group, phase);
                    group = Acc(/*{{A}}*/(/*{{IDENT}}*/), EMPTY);
                }
            }
        }
        acc = combine(combine(acc, group, phase), block, phase);
        part[lid] = acc;
        workgroupBarrier();
        for (var s = 128u; s > 0u; s >>= 1u) {
            if (lid < s) { part[lid] = combine(part[lid], part[lid + s], phase); }
            workgroupBarrier();
        }
        acc = part[0];
        if (phase + 1u < PASSES) { first = between(acc, count, phase, first); }
        workgroupBarrier();
    }
    if (lid == 0u) {
        out[o] = finish(acc, first, count);
    }
}
