"""``teachgrad.compile(fn)``: trace the first call, replay the program afterwards."""
import warnings

from teachgrad.compile import guards, passes
from teachgrad.compile.program import _ASARRAY, GuardFailed
from teachgrad.compile.tracer import (_DATA_SLOT, Recorder, _plain, observing_user_code,
                                      tracing)
from teachgrad.tensor import Tensor

TRACE_LIMIT = 8         # as torch.compile's cache_size_limit: then the step stays eager
PASSES = (passes.eliminate_common_subexpressions, passes.forward_identities,
          passes.eliminate_dead_code,
          passes.fuse_mm_bias, passes.plan_memory)


class CannotCapture(Exception):
    """What the trace saw cannot be replayed: the step stays eager."""


class CompiledStep:
    """A traced program plus what its replay must do to the tensors afterwards."""

    def __init__(self, program, effects, returned):
        self.program = program
        self.effects = effects          # [(kind, argument position or None, tensor, what)]
        self.returned = returned        # how to rebuild the return value from the outputs
        self.run = program.lower()
        self.buffers = program.allocate()
        self.inputs = [(v.arg, v.tensor, v.grad_of, v.shape, v.dtype) for v in program.inputs()]

    def input_arrays(self, args):
        arrays = []
        for position, tensor, grad_of, shape, dtype in self.inputs:
            source = tensor if position is None else args[position]
            if grad_of is not None:                 # the .grad of a tensor: read it anew
                owner_position, owner = grad_of
                owner = owner if owner_position is None else args[owner_position]
                source = owner.__dict__.get("_grad")
                if source is None:
                    raise GuardFailed("input")
            array = _DATA_SLOT.__get__(source, Tensor) if isinstance(source, Tensor) else source
            if array.shape != shape or array.dtype != dtype:
                raise GuardFailed("input")
            arrays.append(array)
        return arrays

    def __call__(self, args):
        outputs = self.run(self.input_arrays(args), self.buffers,
                           lambda: self._release_replaced_grads(args))
        for kind, position, tensor, what in self.effects:
            if position is not None:                # a tensor passed in: this call's
                tensor = args[position]
            if kind == "grad":
                tensor._grad = None if what is None else Tensor._make(outputs[what])
            elif kind == "data":
                _DATA_SLOT.__set__(tensor, outputs[what])
            else:                                   # "version": bump it as eager did
                tensor._version_counter.version += what
        return _rebuild(self.returned, outputs)

    def _release_replaced_grads(self, args):
        """Let go of the ``.grad`` tensors this call replaces before it makes the new ones,
        as the eager step's ``zero_grad()`` does, so that their memory can serve again.
        (Called once the replay can no longer hand the call back to eager.)"""
        for kind, position, tensor, _ in self.effects:
            if kind == "grad":
                (tensor if position is None else args[position])._grad = None


def _rebuild(returned, outputs):
    """The step's return value, made again around this call's outputs."""
    kind, what = returned
    if kind == "tensor":
        return Tensor._make(outputs[what])
    if kind in (tuple, list):
        return kind(_rebuild(item, outputs) for item in what)
    if kind is dict:
        return {key: _rebuild(item, outputs) for key, item in what.items()}
    return what


class CompiledFunction:
    """``step = teachgrad.compile(fn)``; ``step(...)`` as ``fn(...)``.

    ``step.program``: the latest program; ``step.trace``: the same before the passes;
    ``step.guards``: the Python that checks, before each replay, what the step reaches;
    ``step.traces``: how many times it traced; ``step.eager_calls``: calls a failed check
    ran eagerly; ``step.fallback_reason``: why it runs eagerly for good, if it does. (A call
    with keyword arguments runs eagerly.)
    """

    def __init__(self, fn, passes=PASSES):
        self.fn, self.passes = fn, passes
        self.cache = []                 # (guards.Snapshot, CompiledStep), newest last
        self.traces = 0
        self.eager_calls = 0            # calls a failed check sent back to eager
        self.fallback_reason = None
        self.program = None             # the latest program, after the passes
        self.trace = None               # ... and as it was traced
        self.guards = None              # ... and the source of the check that guards it
        self._changed_state = False
        self.code_read = {}             # the user's code seen running (guards.Snapshot)

    def __call__(self, *args, **kwargs):
        if self.fallback_reason is not None or kwargs:
            return self.fn(*args, **kwargs)
        for snapshot, step in self.cache:
            if snapshot.holds(args):
                try:
                    return step(args)
                except GuardFailed:             # a branch or shape the trace did not see
                    self.eager_calls += 1
                    return self.fn(*args)
        return self._trace(args, guards.Snapshot(self.fn, args, self.code_read))

    def _trace(self, args, snapshot):
        if self.traces >= TRACE_LIMIT:
            return self._fall_back(f"traced {TRACE_LIMIT} times (the guards keep changing)",
                                   args)
        if snapshot.unguardable is not None:
            return self._fall_back(snapshot.unguardable, args)
        self.traces += 1
        state = snapshot.state_tensors(args)
        before = {i: (t.__dict__.get("_grad"), t._version_counter.version)
                  for i, t in state.items()}
        random_before = snapshot.random_states()
        recorder = Recorder(args, snapshot.watched_arrays())
        with tracing(recorder):
            try:
                with observing_user_code() as code_read:
                    result = self.fn(*recorder.wrap_args(args))
            except Exception as error:
                reason = f"the step raised {type(error).__name__}: {str(error).splitlines()[0]}"
                self._warn(reason)
                self.fallback_reason = reason
                raise
            with recorder.aside():
                random_after = snapshot.random_states()
            if random_after != random_before:
                recorder.give_up("the step draws random numbers from Python's random or "
                                 "numpy's: a replay would repeat the same ones")
            self.code_read.update(code_read)
            if not recorder.stopped:
                recorder.stopped = True
                try:
                    compiled = self._finish(recorder, snapshot, state, before, result)
                except CannotCapture as problem:
                    recorder.reason = str(problem)
        if recorder.reason is not None:
            self._warn(recorder.reason)
            self.fallback_reason = recorder.reason
            return result
        if not snapshot.found_holds():
            # The step changed Python state (optimiser state made on its first call, say):
            # its replay could not, so it is traced again next time -- once.
            if self._changed_state:
                self._fall_back_later("the step changes Python state on every call")
            self._changed_state = True
            return result
        if not snapshot.covers(code_read):
            return result                   # traced again, looking into it from the start
        self.cache.append((snapshot, compiled))
        self._changed_state = False         # (a new layer's first call may change it again)
        self.program, self.trace = compiled.program, compiled.trace
        self.guards = snapshot.source
        return result

    def _finish(self, recorder, snapshot, state, before, result):
        program = recorder.program
        _refuse_late_checks(program)
        names = snapshot.named_tensors()
        grads = {id(grad): number for number, (grad, _) in before.items() if grad is not None}
        for value in program.inputs():
            owner = grads.get(id(value.tensor))
            if value.arg is None and owner is not None and id(value.tensor) not in state:
                value.grad_of = (recorder.arg_positions.get(owner), state[owner])
                value.name = names.get(owner, "tensor") + ".grad"
            else:
                value.name = (f"arg{value.arg}" if value.arg is not None
                              else names.get(id(value.tensor), "tensor"))
        _refuse_unwatched_inputs(program, snapshot.watched())
        effects = []
        for number, tensor in state.items():
            grad_before, version_before = before[number]
            grad = tensor.__dict__.get("_grad")
            where = (recorder.arg_positions.get(number), tensor)
            if grad is not grad_before:
                effects.append(("grad", *where, None if grad is None else
                                _output(program, recorder, _DATA_SLOT.__get__(grad, Tensor))))
            if tensor._version_counter.version != version_before:
                effects.append(("version", *where,
                                tensor._version_counter.version - version_before))
            value = recorder.inputs.get(number)
            array = _DATA_SLOT.__get__(tensor, Tensor)
            if value is not None and recorder.value_of(array).id != value.id:
                effects.append(("data", *where, _output(program, recorder, array)))
        returned = _returned(program, recorder, result)
        trace = program.copy()                  # as traced, before the passes
        for run_pass in self.passes:
            run_pass(program)
        compiled = CompiledStep(program, effects, returned)
        compiled.trace = trace
        _verify(compiled, recorder, state)
        return compiled

    def _fall_back(self, reason, args):
        self._warn(reason)
        self.fallback_reason = reason
        return self.fn(*args)

    def _fall_back_later(self, reason):
        self._warn(reason)
        self.fallback_reason = reason

    def _warn(self, reason):
        name = getattr(self.fn, "__name__", "the step")
        warnings.warn(f"teachgrad.compile({name}) runs eagerly: {reason}", UserWarning,
                      stacklevel=4)


def _refuse_late_checks(program):
    """A branch check must come before the step writes into its inputs: a replay that
    fails it can then hand over to eager with nothing changed."""
    inputs = {v.id for v in program.inputs()}
    changed = False
    for instruction in program.instructions:
        if instruction.expect is not None and changed:
            raise CannotCapture("bool() of a value the step computes decides a branch after "
                              "the step changed its inputs")
        changed = changed or any(program.values[m].root in inputs for m in instruction.mutates)


def _refuse_unwatched_inputs(program, watched):
    """The program reads each tensor not passed as an argument as that very object (and a
    ``.grad`` through its owner). The guards must see where it is kept, to trace again when
    another takes its place."""
    for value in program.inputs():
        position, tensor = (value.arg, value.tensor) if value.grad_of is None else value.grad_of
        if position is None and id(tensor) not in watched:
            raise CannotCapture(
                f"the step reads a tensor its guards cannot watch ({value.name}, "
                f"{value.type_string()}): pass it as an argument, or keep it in a module, an "
                "optimiser, a list, the closure or a global")


def _output(program, recorder, array):
    """The output slot of the value ``array`` holds (made an output if it is not yet)."""
    value = recorder.value_of(array)
    if value.origin == "input":
        raise CannotCapture("the step puts an input's array into another tensor")
    if value.id not in program.outputs:
        program.outputs.append(value.id)
    return program.outputs.index(value.id)


def _returned(program, recorder, result):
    if isinstance(result, Tensor):
        if result.requires_grad and result.grad_fn is None:
            raise CannotCapture("the step returns a leaf tensor that requires grad")
        if result.grad_fn is not None and result.grad_fn not in recorder.consumed:
            raise CannotCapture(
                f"the step returns a tensor whose graph ({result.grad_fn.name()}) a later "
                "backward may still need, and a replay makes no graph: call backward inside "
                "the step, or return .detach()")
        return ("tensor", _output(program, recorder, _DATA_SLOT.__get__(result, Tensor)))
    if isinstance(result, (tuple, list)):
        return (type(result), [_returned(program, recorder, item) for item in result])
    if isinstance(result, dict):
        return (dict, {key: _returned(program, recorder, item) for key, item in result.items()})
    if isinstance(result, (bool, int, float, str, type(None))):
        return ("constant", result)
    raise CannotCapture(f"the step returns a value of type {type(result).__name__}")


def _verify(compiled, recorder, state):
    """Replay the program on the inputs the trace saw: it must leave, bit for bit, what
    the eager run left. (Anything the tracer missed shows here.)"""
    program = compiled.program
    inputs = [v.snapshot.copy() for v in program.inputs()]
    outputs = compiled.run(inputs, compiled.buffers)
    replayed = [(v.id, array) for v, array in zip(program.inputs(), inputs)]
    replayed += zip(program.outputs, outputs)
    for number, array in replayed:
        if not _bits_equal(_ASARRAY(array), _plain(recorder.keep_of(number))):
            raise CannotCapture(f"the program does not reproduce the eager step (v{number})")


def _bits_equal(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and \
        a.tobytes() == b.tobytes()          # (in C order, whatever the layout)
