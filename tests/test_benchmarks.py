"""The benchmark code runs, and its numpy floors are the very networks teachgrad trains.

Tiny sizes and one repetition: nothing here measures or asserts a time."""
import math

import numpy as np
import pytest

import teachgrad
from benchmarks import __main__ as bench
from benchmarks import chain, cnn, counts, memory, mlp, notebooks, timing


def _assert_same_loss_and_grads(module, params, x, y, **sizes):
    model, step = module.framework_step(teachgrad, params, x, y, **sizes)
    loss = step()                # grads stay those of the initial weights after the update
    floor_loss, floor_grads = module.numpy_loss_and_grads(params, x, y)
    assert loss.item() == pytest.approx(float(floor_loss), rel=1e-5)
    parameters = list(model.parameters())
    assert len(parameters) == len(floor_grads)
    for param, grad in zip(parameters, floor_grads):
        assert param.grad.shape == grad.shape
        np.testing.assert_allclose(param.grad.numpy(), grad, rtol=1e-4, atol=1e-6)


def test_mlp_numpy_floor_is_the_same_network():
    sizes = (12, 8, 6, 3)
    params, x, y = mlp.make_data(sizes, batch=5)
    _assert_same_loss_and_grads(mlp, params, x, y, sizes=sizes)


def test_mlp_floor_step_matches_teachgrad_sgd_step():
    sizes = (12, 8, 6, 3)
    params, x, y = mlp.make_data(sizes, batch=5)
    model, step = mlp.framework_step(teachgrad, params, x, y, sizes=sizes)
    floor_params = [p.copy() for p in params]
    floor_step = mlp.numpy_step(floor_params, x, y)
    for _ in range(3):
        step()
        floor_step()
    for param, floor in zip(model.parameters(), floor_params):
        np.testing.assert_allclose(param.detach().numpy(), floor, rtol=1e-5, atol=1e-6)


def test_cnn_numpy_floor_is_the_same_network():
    params, x, y = cnn.make_data(batch=4, size=12)
    _assert_same_loss_and_grads(cnn, params, x, y, size=12)


def test_chain_value_and_gradient_match_a_hand_computation():
    w = teachgrad.tensor(0.9, requires_grad=True)
    acc = chain.chain(teachgrad, w, teachgrad.tensor(0.1), steps=6)
    acc.backward()
    value, d_value = 0.5, 0.0           # acc and d acc / d w, in forward mode
    for _ in range(6):
        new = math.tanh(value * 0.9 + 0.1)
        d_value = (1 - new ** 2) * (value + 0.9 * d_value)
        value = new
    assert acc.item() == pytest.approx(value, rel=1e-6)
    assert w.grad.item() == pytest.approx(d_value, rel=1e-5)


def test_interleaved_gives_one_median_per_contender():
    calls = []
    medians = timing.interleaved({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")},
                                 repeats=20, warmup=1)
    assert set(medians) == {"a", "b"} and all(t >= 0 for t in medians.values())
    assert calls[:2] == ["a", "b"]                      # the warm-up, then 20 rounds of two
    rounds = [tuple(calls[i:i + 2]) for i in range(2, len(calls), 2)]
    assert len(rounds) == 20 and set(rounds) == {("a", "b"), ("b", "a")}   # in both orders
    row = timing.ratio_row("case", 3.0, 2.0, 1.2)
    assert row[3:] == ("1.50×", "≤ 1.2×", "no")


def test_ratio_spread_is_the_quartiles_of_the_rounds():
    times = timing.Timings({"ours": [1.0, 2.0, 3.0, 4.0, 5.0], "ref": [1.0] * 5})
    assert times["ours"] == 3.0
    assert times.ratio_spread("ours", "ref") == (1.5, 4.5)    # statistics.quantiles, n=4
    row = timing.ratio_row("case", 3.0, 2.0, 2, spread=(1.25, 1.75))
    assert row[3:] == ("1.50× (1.25–1.75)", "≤ 2×", "yes")


def test_memory_measure_accounts_for_the_forward_pass():
    held, forward, growth, grown, cycles = memory.measure(mlp, steps=2, warmup=1)
    activations = 64 * (256 + 128) * 4       # the two hidden layers' outputs, float32
    assert forward >= activations
    assert held < 1 and cycles == 0          # backward freed most of what forward held


def test_notebook_durations_are_summed_per_notebook():
    output = ("1.50s call     notebooks/01_a.ipynb::Cell 0\n"
              "0.25s setup    notebooks/01_a.ipynb::Cell 1\n"
              "2.00s call     solutions/01_a.ipynb::Cell 0\n")
    found = notebooks.DURATION.findall(output)
    assert [nb for _, nb in found] == ["notebooks/01_a.ipynb"] * 2 + ["solutions/01_a.ipynb"]
    assert sum(float(s) for s, nb in found if nb.startswith("notebooks")) == 1.75


def test_command_line_writes_the_results_table(tmp_path, capsys):
    results = tmp_path / "results.md"
    bench.main(["chain", "--quick", "--output", str(results)])
    text = results.read_text()
    assert "| Case | teachgrad | reference | ratio | target | met |" in text
    assert "Scalar chain" in text and "numpy" in text
    assert "Scalar chain, per step: eager / compiled (counts)" in text    # counts need no torch
    if timing.torch is None:
        assert "| Scalar chain, per op, vs torch | skipped: torch absent |" in text
    else:
        assert "Scalar chain, compiled, per op, vs torch" in text


def test_torch_columns_are_skipped_without_torch(monkeypatch):
    monkeypatch.setattr(timing, "torch", None)
    assert set(mlp.contenders()) == {"teachgrad", "compiled", "numpy"}
    assert set(cnn.contenders()) == {"teachgrad", "compiled", "numpy"}
    skipped, counted = chain.run(1)
    assert skipped[1] == "skipped: torch absent"
    assert counted[0] == "Scalar chain, per step: eager / compiled (counts)"


def test_compiled_contenders_replay_and_match_eager():
    steps = mlp.contenders()
    assert steps["compiled"].fallback_reason is None and steps["compiled"].program is not None
    eager_loss, compiled_loss = steps["teachgrad"](), steps["compiled"]()
    assert eager_loss.detach().numpy().tobytes() == compiled_loss.numpy().tobytes()


def test_count_row_compares_eager_with_compiled():
    eager, compiled = counts.compiled_twin(lambda: chain.chain_step(teachgrad, steps=5))
    row = counts.row("Chain", eager, compiled, timing)
    assert row[0] == "Chain, per step: eager / compiled (counts)"
    eager_calls = int(row[1].split()[0])
    compiled_calls = int(row[2].split()[0])
    assert eager_calls > 10 * compiled_calls
    assert row[2].endswith("allocations") and "fewer calls" in row[3]
