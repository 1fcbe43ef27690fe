"""Creation: torch.tensor (dtype inference from nested lists), zeros, ones, full, arange.
rand/randn are not here: their numbers are webtorch's own Philox stream, not PyTorch's."""

from cases import INF, NAN


def build(fam, rng):
    c = fam.case
    # torch.tensor: ints -> int64, any non-integral number -> float32, bools -> bool.
    c("ints_1d", "tensor", args={"data": [1, 2, 3]})
    c("ints_2d", "tensor", args={"data": [[1, -2], [3, 4], [5, 6]]})
    c("ints_3d", "tensor", args={"data": [[[1, 2]], [[3, 4]]]})
    c("floats_1d", "tensor", args={"data": [1.5, -2.25, 3]})
    c("floats_2d", "tensor", args={"data": [[0.1, 0.2], [0.3, 0.4]]})
    c("bools", "tensor", args={"data": [True, False, True]})
    c("bools_2d", "tensor", args={"data": [[True], [False]]})
    c("bool_and_int", "tensor", args={"data": [True, 2]})
    c("bool_and_float", "tensor", args={"data": [True, 2.5]})
    c("rank0_int", "tensor", args={"data": 3})
    c("rank0_float", "tensor", args={"data": -2.5})
    c("rank0_bool", "tensor", args={"data": True})
    c("empty", "tensor", args={"data": []})
    c("empty_2d", "tensor", args={"data": [[], []]})
    c("nonfinite", "tensor", args={"data": [NAN, INF, -INF, 0.5]})
    c("dtype_float32_from_ints", "tensor", args={"data": [1, 2], "dtype": "float32"})
    c("dtype_int32", "tensor", args={"data": [[1, 2], [3, 4]], "dtype": "int32"})
    c("dtype_int32_truncates", "tensor", args={"data": [1.7, -1.7, 0.5], "dtype": "int32"})
    c("dtype_int64", "tensor", args={"data": [-5, 7], "dtype": "int64"})
    c("dtype_uint8", "tensor", args={"data": [0, 7, 255], "dtype": "uint8"})
    c("dtype_bool_from_ints", "tensor", args={"data": [0, 1, 2], "dtype": "bool"})
    c("dtype_float32_from_bools", "tensor", args={"data": [True, False], "dtype": "float32"})
    c("ragged", "tensor", args={"data": [[1, 2], [3]]}, error="TorchError")

    for op in ("zeros", "ones"):
        c("2d", op, args={"shape": [2, 3]})
        c("rank0", op, args={"shape": []})
        c("size0", op, args={"shape": [0]})
        c("size0_3d", op, args={"shape": [2, 0, 3]})
        for dt in ("int32", "int64", "uint8", "bool", "float32"):
            c(dt, op, args={"shape": [2, 2], "dtype": dt})

    c("float", "full", args={"shape": [2, 3], "fill_value": 1.5})
    c("int_infers_int64", "full", args={"shape": [3], "fill_value": 7})
    c("negative_int", "full", args={"shape": [2], "fill_value": -4})
    c("bool_infers_bool", "full", args={"shape": [2], "fill_value": True})
    c("rank0", "full", args={"shape": [], "fill_value": 3.5})
    c("size0", "full", args={"shape": [0, 2], "fill_value": 2.5})
    c("nan", "full", args={"shape": [2], "fill_value": NAN})
    c("neg_inf", "full", args={"shape": [2], "fill_value": -INF})
    c("int_value_dtype_float32", "full", args={"shape": [2, 2], "fill_value": 2, "dtype": "float32"})
    c("dtype_int32", "full", args={"shape": [2], "fill_value": -3, "dtype": "int32"})
    c("dtype_uint8", "full", args={"shape": [2], "fill_value": 200, "dtype": "uint8"})
    c("dtype_bool", "full", args={"shape": [2], "fill_value": 1, "dtype": "bool"})

    # arange(end), arange(start, end), arange(start, end, step): the keys present pick the form.
    c("end", "arange", args={"end": 5})
    c("start_end", "arange", args={"start": 1, "end": 4})
    c("step", "arange", args={"start": 0, "end": 10, "step": 3})
    c("negative_step", "arange", args={"start": 5, "end": 0, "step": -1})
    c("negative_range", "arange", args={"start": -3, "end": 3, "step": 2})
    c("float_step", "arange", args={"start": 0, "end": 1, "step": 0.25})
    c("float_step_tenth", "arange", args={"start": 0, "end": 1, "step": 0.1})
    c("float_start", "arange", args={"start": 0.5, "end": 3})
    c("float_end", "arange", args={"end": 2.5})
    c("float_negative_step", "arange", args={"start": 1, "end": -1, "step": -0.5})
    c("empty", "arange", args={"start": 0, "end": 0})
    c("empty_end0", "arange", args={"end": 0})
    c("dtype_float32", "arange", args={"start": 0, "end": 5, "dtype": "float32"})
    c("dtype_int32", "arange", args={"end": 4, "dtype": "int32"})
    c("zero_step", "arange", args={"start": 0, "end": 1, "step": 0}, error="TorchError")
    c("wrong_sign", "arange", args={"start": 0, "end": 1, "step": -1}, error="TorchError")
