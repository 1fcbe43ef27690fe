"""einops on webtorch against the einops package on PyTorch (fixture_syntax.py): rearrange
(transposes, splits and merges, `1` and `()`, ellipsis anywhere, lists of tensors, non-contiguous
and integer inputs), reduce (every reduction, pooling, ellipsis), repeat (new axes, tiling,
upsampling), pack/unpack, and einops' errors for bad patterns and misfit shapes."""

from cases import B, F, I


def build(fam, rng):
    c = fam.case

    def x(shape, view=None):
        return F(rng, shape, view=view)

    def r(name, inputs, pattern, error=None, **lengths):
        c(name, "rearrange", inputs, args={"pattern": pattern, "lengths": lengths}, error=error)

    r("transpose", [x([2, 3])], "h w -> w h")
    r("merge", [x([2, 3, 2, 2])], "b c h w -> b (h w) c")
    r("merge_order", [x([2, 3, 4])], "b c h -> (h b) c")
    r("split", [x([2, 6])], "b (h w) -> b h w", h=2)
    r("split_merge", [x([2, 4, 6, 3])], "b (h p1) (w p2) c -> b h w (p1 p2 c)", p1=2, p2=3)
    r("space_to_depth", [x([1, 2, 4, 4])], "b c (h h2) (w w2) -> b (c h2 w2) h w", h2=2, w2=2)
    r("both_given", [x([6, 2])], "(h w) c -> h w c", h=2, w=3)
    r("identity", [x([2, 3])], "a b -> a b")
    r("unit_axes", [x([2, 1, 3])], "a 1 b -> 1 b a 1")
    r("empty_group", [x([2, 3])], "a b -> a () b")
    r("drop_empty_group", [x([2, 1, 3])], "a () b -> b a")
    r("ellipsis_front", [x([2, 3, 4])], "... c -> c ...")
    r("ellipsis_middle", [x([2, 3, 2, 4])], "b ... c -> c ... b")
    r("ellipsis_group", [x([2, 3, 2, 4])], "b ... c -> b (...) c")
    r("ellipsis_merge_all", [x([2, 3, 2])], "... -> (...)")
    r("ellipsis_empty", [x([2, 3])], "b ... c -> c b ...")
    r("rank0", [x([])], " -> 1 1")
    r("transposed_input", [x([3, 2], [("t", [])])], "h w -> (w h)")
    r("expanded_input", [x([3, 1], [("expand", [3, 4])])], "h w -> w h")
    r("int", [I(rng, [2, 3, 2], "int64")], "a b c -> (c a) b")
    r("bool", [B(rng, [2, 3])], "a b -> b a")
    r("unicode_names", [x([2, 3])], "высота ширина -> ширина высота")
    c("list", "rearrange", [x([3, 2]), x([3, 2])], args={"pattern": "n h w -> h (n w)", "list": True})
    # errors (einops' messages; sets of one element, since Python prints sets in hash order)
    r("wrong_rank", [x([2, 3, 4])], "b c h w -> b c h w", error="EinopsError")
    r("one_side", [x([2, 3])], "b c -> c", error="EinopsError")
    r("duplicate", [x([2, 2])], "b b -> b", error="EinopsError")
    r("unknown_char", [x([2, 3])], "b-c -> b c", error="EinopsError")
    r("nested_brackets", [x([2, 3])], "(b (c)) -> b c", error="EinopsError")
    r("unbalanced_close", [x([2, 3])], "b c) -> b c", error="EinopsError")
    r("unbalanced_open", [x([2, 3])], "(b c -> b c", error="EinopsError")
    r("stray_dot", [x([2, 3])], "b.c -> b c", error="EinopsError")
    r("two_ellipses", [x([2, 3])], "... ... -> ...", error="EinopsError")
    r("underscore", [x([2, 3])], "_b c -> c _b", error="EinopsError")
    r("zero_axis", [x([2, 3])], "(b 0) c -> b c", error="EinopsError")
    r("anonymous", [x([4, 3])], "(b 2) c -> b c", error="EinopsError")
    r("indivisible", [x([6, 3])], "(b h) c -> b h c", h=4, error="EinopsError")
    r("size_mismatch", [x([2, 3])], "b c -> b c", b=3, error="EinopsError")
    r("unused_length", [x([2, 3])], "b c -> c b", q=2, error="EinopsError")
    r("ellipsis_right_only", [x([2, 3])], "b c -> b c ...", error="EinopsError")
    r("ellipsis_in_group_left", [x([2, 3])], "(b ...) c -> b ... c", error="EinopsError")
    r("ellipsis_too_few_dims", [x([2, 3])], "a b c ... -> a b c ...", error="EinopsError")

    def red(name, inputs, pattern, reduction, error=None, **lengths):
        c(name, "einops_reduce", inputs,
          args={"pattern": pattern, "reduction": reduction, "lengths": lengths}, error=error)

    red("sum", [x([2, 3, 4])], "b c h -> b", "sum")
    red("mean", [x([2, 3, 4])], "b c h -> c", "mean")
    red("max_pool", [x([1, 2, 4, 4])], "b c (h 2) (w 2) -> b c h w", "max")
    red("min", [x([2, 3, 4])], "b c h -> h b", "min")
    red("prod", [x([2, 3, 2])], "a b c -> b", "prod")
    red("mean_keep", [x([2, 3, 4])], "b c h -> b 1 h", "mean")
    red("ellipsis", [x([2, 3, 4, 2])], "b ... -> b", "sum")
    red("ellipsis_kept", [x([2, 3, 4])], "b ... c -> ... b", "max")
    red("global_avg_pool", [x([2, 3, 2, 2])], "b c h w -> b c () ()", "mean")
    red("nothing_reduced", [x([2, 3])], "a b -> b a", "sum")
    red("given_length", [x([6, 2])], "(a b) c -> a c", "sum", b=3)
    red("all_axes", [x([2, 3])], "a b -> ", "sum")
    red("any", [B(rng, [3, 4])], "a b -> a", "any")
    red("all", [B(rng, [3, 4])], "a b -> b", "all")
    red("int_sum", [I(rng, [2, 3], "int64")], "a b -> b", "sum")
    c("list", "einops_reduce", [x([2, 3]), x([2, 3])],
      args={"pattern": "n a b -> a b", "reduction": "mean", "list": True})
    red("unknown_reduction", [x([2, 3])], "a b -> a", "median", error="EinopsError")
    red("new_axis", [x([2, 3])], "a b -> a d", "sum", error="EinopsError")

    def rep(name, inputs, pattern, error=None, **lengths):
        c(name, "einops_repeat", inputs, args={"pattern": pattern, "lengths": lengths}, error=error)

    rep("new_axis", [x([2, 3])], "h w -> h w c", c=3)
    rep("new_axis_first", [x([2, 3])], "h w -> b h w", b=2)
    rep("tile_rows", [x([2, 3])], "h w -> (r h) w", r=2)
    rep("upsample", [x([2, 3])], "h w -> (h 2) (w 2)")
    rep("interleave", [x([2, 3])], "h w -> h (w k)", k=2)
    rep("ellipsis", [x([2, 3, 2])], "b ... -> b k ...", k=2)
    rep("rank0", [x([])], " -> a b", a=2, b=3)
    rep("split_and_repeat", [x([6])], "(a b) -> b a c", a=2, c=2)
    rep("int", [I(rng, [2, 2], "int32")], "h w -> h w 3")
    rep("no_size", [x([2, 3])], "h w -> h w c", error="EinopsError")
    rep("left_only", [x([2, 3])], "h w -> h", error="EinopsError")

    def pk(name, inputs, pattern, error=None):
        c(name, "pack", inputs, args={"pattern": pattern}, error=error)

    pk("middle", [x([2, 3, 5]), x([2, 3, 2, 5]), x([2, 3, 1, 2, 5])], "i j * k")
    pk("last", [x([2, 3]), x([2])], "b *")
    pk("first", [x([2, 3]), x([3])], "* c")
    pk("int", [I(rng, [2, 2], "int64"), I(rng, [2], "int64")], "b *")
    pk("no_star", [x([2, 3])], "b c", error="EinopsError")
    pk("duplicate", [x([2, 3])], "b b *", error="EinopsError")
    pk("invalid_name", [x([2, 3])], "b_ *", error="EinopsError")
    pk("too_few_axes", [x([2, 3]), x([2])], "a * b", error="EinopsError")

    def up(name, inputs, ps, pattern, error=None):
        c(name, "unpack", inputs, args={"ps": ps, "pattern": pattern}, error=error)

    up("middle", [x([2, 3, 8, 5])], [[], [2], [1, 5]], "i j * k")
    up("infer", [x([2, 7])], [[2], [-1], [1, 2]], "b *")
    up("infer_first", [x([6, 2])], [[-1], [2, 2]], "* c")
    up("wrong_dim", [x([2, 3])], [[3]], "a b *", error="EinopsError")
    up("two_unknown", [x([2, 6])], [[-1], [-1]], "b *", error="EinopsError")
    up("cannot_split", [x([2, 6])], [[2], [3]], "b *", error="EinopsError")
