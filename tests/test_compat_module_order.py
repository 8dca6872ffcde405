"""Replacing a child or a parameter keeps its place, as in PyTorch (issue 30).

Before, ``seq[0] = nn.Linear(...)`` or ``model.fc = ...`` on a model that already had ``fc``
moved that child to the end of ``_modules``: a Sequential then ran its layers in another
order, silently. Each program runs on torch and on teachgrad and the records are compared.
"""
import pytest

import teachgrad

torch = pytest.importorskip("torch")


def run_both(program):
    expected, got = program(torch), program(teachgrad)
    assert got == expected
    return got


def layer_names(module):
    return [(name, type(child).__name__) for name, child in module.named_children()]


def test_sequential_item_assignment_keeps_the_order_it_runs_in():
    def program(t):
        t.manual_seed(0)
        seq = t.nn.Sequential(t.nn.Linear(2, 3), t.nn.ReLU(), t.nn.Linear(3, 1))
        seq[0] = t.nn.Linear(2, 3, bias=False)
        with t.no_grad():
            seq[0].weight.fill_(1.0)
            out = seq(t.tensor([[1.0, -2.0]]))
        return layer_names(seq), list(seq.state_dict()), tuple(out.shape), \
            repr(seq).replace("teachgrad", "torch")
    names, keys, shape, _ = run_both(program)
    assert names[0] == ("0", "Linear") and keys[0] == "0.weight" and shape == (1, 1)


def test_replacing_an_attribute_child_keeps_its_position():
    def program(t):
        class Net(t.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = t.nn.Linear(4, 4)
                self.act = t.nn.Tanh()
                self.head = t.nn.Linear(4, 2)
        net = Net()
        net.fc = t.nn.Linear(4, 4)
        net.act = t.nn.ReLU()
        return layer_names(net), list(net.state_dict()), [n for n, _ in net.named_modules()]
    names, _, _ = run_both(program)
    assert [name for name, _ in names] == ["fc", "act", "head"]


def test_replacing_a_parameter_keeps_its_position_and_buffers_keep_theirs():
    def program(t):
        layer = t.nn.Linear(3, 2)
        layer.register_buffer("scale", t.ones(1))
        layer.register_buffer("shift", t.zeros(1))
        layer.weight = t.nn.Parameter(t.zeros(2, 3))
        layer.scale = t.full((1,), 2.0)
        return [n for n, _ in layer.named_parameters()], list(layer.state_dict())
    params, keys = run_both(program)
    assert params == ["weight", "bias"] and keys == ["weight", "bias", "scale", "shift"]


def test_a_name_moving_to_another_kind_is_registered_anew():
    def program(t):
        net = t.nn.Module()
        net.a = t.nn.Linear(1, 1)
        net.b = t.nn.Linear(1, 1)
        net.a = t.nn.Parameter(t.ones(1))         # a child becomes a parameter
        net.b = None                              # a child set to None stays in its place
        return list(net._modules), list(net._parameters), [n for n, _ in net.named_children()]
    modules, params, children = run_both(program)
    assert modules == ["b"] and params == ["a"] and children == []
