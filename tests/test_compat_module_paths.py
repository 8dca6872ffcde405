"""Module paths that programs import at the top, whether or not they use them (issue 30):
``nn.parallel`` (nanoGPT's ``train.py``), ``distributed``, ``onnx``, ``backends.cuda``,
``nn.modules.*``, ``utils.data.dataloader`` and ``.sampler``, ``amp`` and ``cuda.amp``;
and what each does on a machine without a GPU, compared with torch 2.13."""
import importlib

import pytest

import program_compare
import teachgrad
from program_compare import outcome

torch = pytest.importorskip("torch")


def run_both(program):
    return program_compare.run_both(program, torch, teachgrad)


PATHS = ["nn.parallel", "distributed", "onnx", "backends.cuda", "nn.modules",
         "nn.modules.linear", "nn.modules.loss", "nn.modules.module", "nn.modules.container",
         "nn.modules.rnn", "nn.modules.transformer", "utils.data.dataloader",
         "utils.data.sampler", "amp", "cuda.amp"]


@pytest.mark.parametrize("path", PATHS)
def test_module_path_imports(path):
    ours = importlib.import_module("teachgrad." + path)
    theirs = importlib.import_module("torch." + path)
    public = {name for name in dir(theirs) if name[:1].isupper()
              and getattr(getattr(theirs, name), "__module__", "").startswith(theirs.__name__)}
    missing = {"DataParallel", "DistributedDataParallel", "Linear", "MSELoss", "Module",
               "Sequential", "LSTM", "DataLoader", "RandomSampler", "SequentialSampler",
               "BatchSampler", "GradScaler"} & public - set(dir(ours))
    assert not missing


def test_the_classes_under_their_torch_paths_are_teachgrads_own():
    from teachgrad.nn.modules.linear import Linear
    from teachgrad.nn.modules.module import Module
    from teachgrad.utils.data.dataloader import DataLoader
    from teachgrad.utils.data.sampler import RandomSampler
    assert Linear is teachgrad.nn.Linear and Module is teachgrad.nn.Module
    assert DataLoader is teachgrad.utils.data.DataLoader
    assert RandomSampler is teachgrad.utils.data.RandomSampler
    assert teachgrad.nn.parallel.DataParallel is teachgrad.nn.DataParallel


def test_data_parallel_without_a_gpu_wraps_the_module_transparently():
    def program(t):
        t.manual_seed(0)
        model = t.nn.DataParallel(t.nn.Sequential(t.nn.Linear(3, 2), t.nn.Tanh()))
        out = model(t.ones(4, 3))
        out.sum().backward()
        return (repr(model).replace("teachgrad", "torch"), list(model.state_dict()),
                model.device_ids, out.grad_fn.name(), out.detach().numpy().round(4).tolist(),
                model.module[0].weight.grad.numpy().round(4).tolist())
    record = run_both(program)
    assert record[1] == ["module.0.weight", "module.0.bias"] and record[2] == []


def test_distributed_is_unavailable_and_refuses_clearly():
    def program(t):
        dist = t.distributed
        return (dist.is_initialized(), outcome(dist.get_rank), outcome(dist.get_world_size),
                outcome(lambda: t.nn.parallel.DistributedDataParallel(t.nn.Linear(1, 1))))
    run_both(program)
    assert teachgrad.distributed.is_available() is False
    with pytest.raises(RuntimeError, match="Distributed package doesn't have NCCL built in"):
        teachgrad.distributed.init_process_group(backend="nccl")


def test_onnx_imports_and_export_is_refused():
    assert teachgrad.onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export() is False
    with pytest.raises(NotImplementedError, match="not supported"):
        teachgrad.onnx.export(teachgrad.nn.Linear(2, 2), (teachgrad.ones(1, 2),), "model.onnx")


def test_backends_cuda_switches():
    def program(t):
        cuda = t.backends.cuda
        cuda.matmul.allow_tf32 = True      # nanoGPT's lines, harmless without a GPU
        return (cuda.is_built(), cuda.flash_sdp_enabled(), cuda.math_sdp_enabled(),
                cuda.mem_efficient_sdp_enabled())
    assert run_both(program) == (False, True, True, True)


def scaler_program(t, make_scaler):
    """A few steps of SGD behind a GradScaler; one has an inf gradient where the scaler is
    on (it skips that step)."""
    scaler = make_scaler(t)
    weight = t.nn.Parameter(t.tensor([1.0, 2.0]))
    optimizer = t.optim.SGD([weight], lr=0.1)
    record = [scaler.is_enabled()]
    for step in range(4):
        optimizer.zero_grad()
        blow_up = step == 2 and scaler.is_enabled()
        loss = (weight * (float("inf") if blow_up else weight)).sum()
        scaled = scaler.scale(loss)
        scaled.backward()
        scaler.step(optimizer)
        scaler.update()
        record.append((scaled.item(), scaled.grad_fn.name(), weight.tolist(),
                       scaler.get_scale(), scaler.state_dict()))
    record.append(outcome(lambda: [scaler.unscale_(optimizer), scaler.unscale_(optimizer)]))
    return record


@pytest.mark.parametrize("make_scaler", [
    lambda t: t.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2),
    lambda t: t.amp.GradScaler(),
    lambda t: t.cuda.amp.GradScaler(),
], ids=["cpu", "cuda-disabled", "cuda.amp-deprecated"])
def test_grad_scaler(make_scaler):
    record = run_both(lambda t: scaler_program(t, make_scaler))
    assert record[0] is (record[1][3] != 1.0)


def sampler_program(t):
    data = t.utils.data
    t.manual_seed(3)
    dataset = data.TensorDataset(t.arange(10.0))
    record = [list(data.SequentialSampler(dataset)), list(data.RandomSampler(dataset)),
              list(data.RandomSampler(dataset, replacement=True, num_samples=40)),
              list(data.RandomSampler(dataset, num_samples=13)),
              list(data.BatchSampler(data.SequentialSampler(range(10)), 3, drop_last=False)),
              list(data.BatchSampler(range(10), 3, drop_last=True)),
              list(data.SubsetRandomSampler([5, 6, 7, 8]))]
    generator = t.Generator().manual_seed(11)
    loader = data.DataLoader(dataset, batch_size=4, sampler=data.RandomSampler(
        dataset, generator=generator))
    record += [[b[0].tolist() for b in loader] for _ in range(2)]
    loader = data.DataLoader(dataset, batch_sampler=data.BatchSampler(
        data.RandomSampler(dataset), batch_size=3, drop_last=True))
    record += [len(loader), [b[0].tolist() for b in loader]]
    record.append([s[0].item() for s in data.DataLoader(dataset, batch_size=None)][:3])
    record.append(t.rand(1).item())          # the global generator after it all
    return record


def test_samplers_and_loaders_draw_what_torch_draws():
    run_both(sampler_program)


@pytest.mark.parametrize("options", [
    dict(shuffle=True, sampler=[0, 1]),
    dict(batch_sampler=[[0, 1]], batch_size=2),
    dict(batch_sampler=[[0, 1]], drop_last=True),
    dict(batch_size=None, drop_last=True),
    dict(batch_size=0),
])
def test_loader_options_that_exclude_each_other(options):
    run_both(lambda t: outcome(lambda: t.utils.data.DataLoader(list(range(4)), **options)))


def test_randint_with_only_high_and_a_size_keyword():
    def program(t):
        t.manual_seed(5)
        return (t.randint(3, size=(6,)).tolist(), t.randint(2, 9, size=(3,)).tolist(),
                t.randint(4, (2,)).tolist())
    run_both(program)


@pytest.mark.parametrize("make", [
    lambda t: t.amp.autocast("cuda"), lambda t: t.autocast(device_type="cuda",
                                                         dtype=t.float16),
    lambda t: t.cuda.amp.autocast(), lambda t: t.cuda.amp.autocast(enabled=False),
    lambda t: t.autocast("cpu", enabled=False),
], ids=["amp-cuda", "autocast-cuda-half", "cuda.amp", "cuda.amp-off", "cpu-off"])
def test_autocast_without_a_gpu_changes_nothing(make):
    def program(t):
        with make(t):
            product = t.ones(2, 2) @ t.ones(2, 2)
            enabled = t.is_autocast_enabled()
        return str(product.dtype).split(".")[1], enabled, product.tolist()
    assert run_both(program)[:2] == ("float32", False)


def test_autocast_on_the_cpu_is_refused_rather_than_run_in_float32():
    with pytest.raises(NotImplementedError, match="no autocast on 'cpu'"):
        teachgrad.autocast("cpu", dtype=teachgrad.float16)
