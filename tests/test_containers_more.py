"""nn.ModuleDict, nn.ParameterList and nn.ParameterDict against torch: used as dicts and lists,
the names their parameters get in the parent module, state_dict, dtype casts, repr, the
errors, and an optimizer step on the parameters they hold."""
from collections import OrderedDict

import pytest

try:
    from . import differential as D
except ImportError:
    import differential as D

torch = pytest.importorskip("torch")
run = D.run_both


def _t(tg, shape, seed):
    return tg.tensor(D.data(shape, seed=seed))


def _type_names(values):
    return [type(value).__name__ for value in values]


# ---- ModuleDict ------------------------------------------------------------------------

def test_module_dict_is_an_ordered_dict_of_modules():
    def prog(tg):
        nn = tg.nn
        modules = nn.ModuleDict({"b": nn.Linear(2, 3), "a": nn.ReLU()})   # dict order kept
        report = {"keys": list(modules), "len": len(modules),
                  "in": ["a" in modules, "z" in modules],
                  "values": _type_names(modules.values()),
                  "items": [(key, type(m).__name__) for key, m in modules.items()],
                  "getitem": type(modules["b"]).__name__, "repr": repr(modules)}
        modules.update([("c", nn.Tanh()), ("a", nn.Sigmoid())])          # a replaced in place
        modules.update(OrderedDict([("e", nn.Identity()), ("d", nn.Identity())]))
        modules["f"] = nn.Flatten()
        report["after_update"] = [(key, type(m).__name__) for key, m in modules.items()]
        report["pop"] = type(modules.pop("c")).__name__
        del modules["b"]
        report["after_del"] = list(modules.keys())
        report["children"] = [name for name, _ in modules.named_children()]
        report["copied"] = list(nn.ModuleDict(modules))
        modules.clear()
        report["cleared"] = [len(modules), repr(modules), repr(nn.ModuleDict())]
        report["pairs"] = list(nn.ModuleDict([["y", nn.ReLU()], ("x", nn.ReLU())]))
        return report
    run(prog)


MODULE_DICT_ERRORS = {
    "missing_key": (lambda nn, m: m["zz"], "KeyError"),
    "pop_missing_key": (lambda nn, m: m.pop("zz"), "KeyError"),
    "del_missing_key": (lambda nn, m: m.__delitem__("zz"), "KeyError"),
    "not_a_module": (lambda nn, m: m.__setitem__("q", 3), "TypeError"),
    "key_not_a_string": (lambda nn, m: m.__setitem__(1, nn.ReLU()), "TypeError"),
    "key_with_a_dot": (lambda nn, m: m.__setitem__("a.b", nn.ReLU()), "KeyError"),
    "empty_key": (lambda nn, m: m.__setitem__("", nn.ReLU()), "KeyError"),
    "key_is_an_attribute": (lambda nn, m: m.__setitem__("training", nn.ReLU()), "KeyError"),
    "update_with_a_number": (lambda nn, m: m.update(3), "TypeError"),
    "update_with_a_non_pair": (lambda nn, m: m.update([3]), "TypeError"),
    "update_with_a_triple": (lambda nn, m: m.update([("c", nn.ReLU(), 1)]), "ValueError"),
    "update_with_a_non_module": (lambda nn, m: m.update({"c": 3}), "TypeError"),
    "construct_from_a_number": (lambda nn, m: nn.ModuleDict(3), "TypeError"),
    "call": (lambda nn, m: m(1), "NotImplementedError"),
}


@pytest.mark.parametrize("case", sorted(MODULE_DICT_ERRORS))
def test_module_dict_errors(case):
    misuse, error = MODULE_DICT_ERRORS[case]
    run(lambda tg: misuse(tg.nn, tg.nn.ModuleDict({"a": tg.nn.ReLU()})), raises=error)


# ---- ParameterList --------------------------------------------------------------------

def test_parameter_list_is_a_list_whose_tensors_become_parameters():
    def prog(tg):
        nn = tg.nn
        kept = nn.Parameter(_t(tg, (2, 3), 0))
        plain = _t(tg, (4,), 1)
        params = nn.ParameterList([kept, plain])
        report = {"types": _type_names(params), "len": len(params), "same": params[0] is kept,
                  "plain_became": [params[1].requires_grad, params[1].is_leaf, params[1]],
                  "negative": params[-1], "iter": list(params)}
        plain.add_(1)                                   # the Parameter shares the tensor's data
        report["shares"] = params[1]
        params.append(_t(tg, (1,), 2))
        params.extend([_t(tg, (2,), 3)])
        params += (_t(tg, (3,), 4) for _ in range(1))
        params[0] = _t(tg, (5,), 5)
        report["grown"] = [len(params), _type_names(params), [p.shape[0] for p in params]]
        part = params[1:4:2]
        report["slice"] = [type(part).__name__, len(part), part[0] is params[1],
                           part[1] is params[3], list(part.state_dict())]
        report["in"] = params[0] in params
        report["repr"] = repr(params)
        return report
    run(prog)


def test_parameter_list_keeps_other_objects_as_plain_attributes():
    def prog(tg):
        nn = tg.nn
        params = nn.ParameterList([_t(tg, (2,), 0), 3, None, nn.Linear(1, 1)])
        params.append(_t(tg, (1,), 1).double())
        return {"entries": [params[1], params[2], type(params[3]).__name__],
                "names": [name for name, _ in params.named_parameters()],
                "children": [name for name, _ in params.named_children()],
                "repr": repr(params), "empty": repr(nn.ParameterList()),
                "one": repr(nn.ParameterList([_t(tg, (), 0)]))}
    run(prog)


def test_membership_of_a_later_parameter_compares_tensors_as_python_does():
    run(lambda tg: _t(tg, (2,), 1) in tg.nn.ParameterList([_t(tg, (2,), 0)]), raises="RuntimeError")


PARAMETER_LIST_ERRORS = {
    "index_out_of_range": (lambda p, tg: p[2], "IndexError"),
    "negative_index_out_of_range": (lambda p, tg: p[-3], "IndexError"),
    "index_not_an_integer": (lambda p, tg: p["a"], "TypeError"),
    "set_out_of_range": (lambda p, tg: p.__setitem__(2, tg.ones(1)), "IndexError"),
    "set_a_parameter_to_a_number": (lambda p, tg: p.__setitem__(0, 5), "TypeError"),
    "extend_with_a_tensor": (lambda p, tg: p.extend(tg.ones(2)), "TypeError"),
    "extend_with_a_number": (lambda p, tg: p.extend(3), "TypeError"),
    "construct_from_a_number": (lambda p, tg: tg.nn.ParameterList(3), "TypeError"),
    "call": (lambda p, tg: p(1), "RuntimeError"),
    "no_insert": (lambda p, tg: p.insert(0, tg.ones(1)), "AttributeError"),
    "no_pop": (lambda p, tg: p.pop(0), "AttributeError"),
    "no_delitem": (lambda p, tg: p.__delitem__(0), "AttributeError"),
}


@pytest.mark.parametrize("case", sorted(PARAMETER_LIST_ERRORS))
def test_parameter_list_errors(case):
    misuse, error = PARAMETER_LIST_ERRORS[case]
    run(lambda tg: misuse(tg.nn.ParameterList([tg.ones(2), tg.zeros(3)]), tg), raises=error)


# ---- ParameterDict --------------------------------------------------------------------

def test_parameter_dict_is_a_dict_whose_tensors_become_parameters():
    def prog(tg):
        nn = tg.nn
        kept = nn.Parameter(_t(tg, (3, 1), 0))
        params = nn.ParameterDict({"b": _t(tg, (2,), 1), "a": kept})     # a plain dict: sorted
        report = {"keys": list(params.keys()), "values": list(params.values()),
                  "items": [(key, type(p).__name__) for key, p in params.items()],
                  "same": params["a"] is kept, "attribute": params.b, "len": len(params),
                  "in": ["a" in params, "z" in params], "reversed": list(reversed(params)),
                  "get": [params.get("b"), params.get("z"), params.get("z", 7)],
                  "repr": repr(params)}
        report["ordered"] = list(nn.ParameterDict(OrderedDict([("y", tg.ones(1)),
                                                               ("x", tg.ones(1))])))
        report["pairs"] = list(nn.ParameterDict([("y", tg.ones(1)), ["x", tg.ones(1)]]))
        params.update([("d", _t(tg, (1,), 2)), ("c", 4)])
        params.update({"f": tg.ones(1), "e": tg.ones(1)})
        params["b"] = _t(tg, (5,), 3)                     # replaced: keeps its place
        report["updated"] = [list(params), _type_names(params.values()), params["b"]]
        report["setdefault"] = [params.setdefault("a"), params.setdefault("g", tg.zeros(2))]
        report["pop"] = params.pop("d")
        del params["e"]
        report["popitem"] = params.popitem()
        copied = params.copy()
        report["copy"] = [list(copied), copied["a"] is params["a"]]
        merged = params | nn.ParameterDict({"z": tg.ones(1)})
        params |= {"y": tg.ones(1)}
        report["or"] = [list(merged), list(params), list(OrderedDict(q=1) | params)]
        report["fromkeys"] = repr(params.fromkeys(["k", "j"], tg.ones(2)))
        params.clear()
        report["cleared"] = [len(params), repr(params), list(params.named_parameters())]
        return report
    run(prog)


PARAMETER_DICT_ERRORS = {
    "missing_key": (lambda p, tg: p["zz"], "AttributeError"),
    "pop_missing_key": (lambda p, tg: p.pop("zz"), "AttributeError"),
    "del_missing_key": (lambda p, tg: p.__delitem__("zz"), "KeyError"),
    "popitem_when_empty": (lambda p, tg: tg.nn.ParameterDict().popitem(), "KeyError"),
    "key_not_a_string": (lambda p, tg: p[3], "TypeError"),
    "set_a_key_not_a_string": (lambda p, tg: p.__setitem__(3, tg.ones(1)), "TypeError"),
    "key_with_a_dot": (lambda p, tg: p.__setitem__("a.b", tg.ones(1)), "KeyError"),
    "empty_key": (lambda p, tg: p.__setitem__("", tg.ones(1)), "KeyError"),
    "set_a_parameter_to_a_number": (lambda p, tg: p.__setitem__("a", 5), "TypeError"),
    "update_with_a_number": (lambda p, tg: p.update(3), "TypeError"),
    "update_with_a_non_pair": (lambda p, tg: p.update([3]), "TypeError"),
    "update_with_a_triple": (lambda p, tg: p.update([("c", tg.ones(1), 1)]), "ValueError"),
    "call": (lambda p, tg: p(1), "RuntimeError"),
}


@pytest.mark.parametrize("case", sorted(PARAMETER_DICT_ERRORS))
def test_parameter_dict_errors(case):
    misuse, error = PARAMETER_DICT_ERRORS[case]
    run(lambda tg: misuse(tg.nn.ParameterDict({"a": tg.ones(2)}), tg), raises=error)


# ---- inside a model ---------------------------------------------------------------------

def _net(tg):
    """A model with all three containers and a ModuleList, its numbers fixed by seeds."""
    nn = tg.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(3, 4)])
            self.blocks = nn.ModuleDict({"hidden": nn.Linear(4, 4), "act": nn.Tanh()})
            self.params = nn.ParameterList([_t(tg, (4, 2), 1), _t(tg, (2,), 2)])
            self.scales = nn.ParameterDict({"out": _t(tg, (2,), 3), "in": _t(tg, (3,), 4)})

        def forward(self, x):
            x = self.layers[0](x * self.scales["in"])
            x = self.blocks["act"](self.blocks["hidden"](x))
            return (x @ self.params[0] + self.params[1]) * self.scales["out"]

    net = Net()
    with tg.no_grad():
        for i, (_, p) in enumerate(net.named_parameters()):
            p.copy_(_t(tg, tuple(p.shape), 10 + i))
    return net


def test_parent_module_sees_the_parameters_by_their_dotted_names():
    def prog(tg):
        net = _net(tg)
        return {"named": [name for name, _ in net.named_parameters()],
                "parameters": list(net.parameters()),
                "state_dict": net.state_dict(),
                "modules": [name for name, _ in net.named_modules()],
                "repr": repr(net)}
    run(prog)


def test_load_state_dict_reaches_the_containers():
    def prog(tg):
        source, target = _net(tg), _net(tg)
        with tg.no_grad():
            for p in source.parameters():
                p.mul_(2)
        result = target.load_state_dict(source.state_dict())
        state = target.state_dict()
        del state["params.1"]
        return {"result": repr(result), "loaded": target.state_dict(),
                "missing": repr(target.load_state_dict(state, strict=False))}
    run(prog)


def test_load_state_dict_reports_a_missing_container_entry():
    def prog(tg):
        net = _net(tg)
        state = net.state_dict()
        del state["scales.in"]
        net.load_state_dict(state)
    run(prog, raises="RuntimeError")


@pytest.mark.parametrize("cast", ["double", "to"])
def test_dtype_casts_reach_the_parameters_in_containers(cast):
    def prog(tg):
        net = _net(tg)
        net(_t(tg, (2, 3), 5)).sum().backward()
        net = net.double() if cast == "double" else net.to(tg.float64)
        return {"dtypes": [str(p.dtype) for p in net.parameters()],
                "grads": [str(p.grad.dtype) for p in net.parameters()],
                "repr": [repr(net.params), repr(net.scales)],
                "out": net(_t(tg, (2, 3), 5).double())}
    run(prog)


def test_sgd_step_updates_the_parameters_in_containers():
    def prog(tg):
        net = _net(tg)
        optimizer = tg.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        x, y = _t(tg, (5, 3), 6), _t(tg, (5, 2), 7)
        for _ in range(2):
            optimizer.zero_grad()
            loss = tg.nn.functional.mse_loss(net(x), y)
            loss.backward()
            optimizer.step()
        return {"loss": loss, "count": len(optimizer.param_groups[0]["params"]),
                "after": dict(net.named_parameters())}
    run(prog, rtol=1e-4, atol=1e-5)
