"""Plausible student mistakes, each a patch of the reference yourgrad, and harmless rewrites.

BROKEN: {mistake: (stage, file, [(old, new), ...], title)} — check.build(stage) must fail on the
check whose title contains `title`, and every check of the earlier stages must pass: a mistake
is caught in the stage where the student writes that code, not only later.
HARMLESS: {rewrite: (file, [(old, new), ...])} — another correct way to write a block; every
check of every stage must pass.
"""

RECURSIVE_COUNT = '''    counts = {}

    def visit(node):
        for next_node, _ in node.next_functions:
            if next_node is not None:
                counts[next_node] = counts.get(next_node, 0) + 1
                if counts[next_node] == 1:
                    visit(next_node)
    for root in roots:
        visit(root)
    return counts
'''

FIRST_REACHED = '''        buffers, ready, pushed, tie = {}, [], set(roots), itertools.count()
        for root, grad in zip(roots, grads):
            add_to_buffer(buffers, root, grad)
            heapq.heappush(ready, (-root.sequence_nr, next(tie), root))
        while ready:
            node = heapq.heappop(ready)[2]
            grads_in = call_node(node, buffers.pop(node), keep_graph, capture)
            for (next_node, _), grad in zip(node.next_functions, grads_in):
                if next_node is None:
                    continue
                add_to_buffer(buffers, next_node, grad)
                if next_node not in pushed:
                    pushed.add(next_node)
                    heapq.heappush(ready, (-next_node.sequence_nr, next(tie), next_node))
'''

BREADTH_FIRST = '''        dependencies = count_dependencies(roots)
        buffers, ready = {}, list(dict.fromkeys(roots))
        for root, grad in zip(roots, grads):
            add_to_buffer(buffers, root, grad)
        while ready:
            node = ready.pop(0)
            if node not in buffers:
                continue
            grads_in = call_node(node, buffers.pop(node), keep_graph, capture)
            for (next_node, _), grad in zip(node.next_functions, grads_in):
                if next_node is not None:
                    add_to_buffer(buffers, next_node, grad)
                    ready.append(next_node)
'''

SORTED_LIST_ENGINE = '''        dependencies = count_dependencies(roots)
        buffers, ready = {}, []
        for root, grad in zip(roots, grads):
            add_to_buffer(buffers, root, grad)
        for root in dict.fromkeys(roots):
            if dependencies.get(root, 0) == 0:
                ready.append(root)
        while ready:
            node = max(ready, key=lambda n: n.sequence_nr)
            ready.remove(node)
            grads_in = call_node(node, buffers.pop(node), keep_graph, capture)
            for (next_node, _), grad in zip(node.next_functions, grads_in):
                if next_node is not None:
                    add_to_buffer(buffers, next_node, grad)
                    dependencies[next_node] -= 1
                    if dependencies[next_node] == 0:
                        ready.append(next_node)
'''

NO_FINALLY_DECORATOR = '''        @functools.wraps(function)
        def switched(*args, **kwargs):
            previous = is_grad_enabled()
            set_enabled(self.mode)
            result = function(*args, **kwargs)
            set_enabled(previous)
            return result
        return switched
'''

TRACE_WITHOUT_FINALLY = '''    global recording
    inputs = [tensor.Tensor(x.array.copy()) for x in example_inputs]
    program = recording = Program(inputs)
    output = function(*inputs)
    recording = None
    program.output = program.number[id(output)]
    return program
'''

RERUN_INSTEAD_OF_REPLAY = '''\
        inputs = [type(x)(x.array, requires_grad=True) for x in inputs]
        output = self.function(*inputs)
        output.backward()
        return output.detach(), [x.grad for x in inputs]
'''

RELEASE = "            saved.release()\n"
MOMENTUM = "                if self.momentum:\n"

BROKEN = {
    # ------------------------------------------------------------ 01: tensor, apply, broadcast
    "every Python number becomes float32": (
        "01", "tensor.py", [('dtype = float32 if array.dtype.kind == "f" else array.dtype',
                             "dtype = float32")], "dtype rule"),
    "dtype= does not win over the default": (
        "01", "tensor.py", [("if dtype is None and not isinstance(data, (np.ndarray, np.generic)):",
                             "if not isinstance(data, (np.ndarray, np.generic)):")],
        "dtype rule"),
    "an integer tensor may require grad": (
        "01", "tensor.py", [('        if requires_grad and self.array.dtype.kind != "f":\n',
                             "        if False:\n")], "only floating-point"),
    "broadcast error: dims counted in the shorter shape": (
        "01", "ops.py", [("at non-singleton dimension {ndim - i}",
                          "at non-singleton dimension {min(len(shape_a), len(shape_b)) - i}")],
        "broadcasting"),
    "broadcast error: the two sizes swapped": (
        "01", "ops.py", [('raise RuntimeError(f"The size of tensor a ({a}) must match the size of '
                          'tensor b "\n                               f"({b})',
                          'raise RuntimeError(f"The size of tensor a ({b}) must match the size of '
                          'tensor b "\n                               f"({a})')], "broadcasting"),
    "broadcast shapes compared from the left": (
        "01", "ops.py", [("a, b = shape_a[-i], shape_b[-i]", "a, b = shape_a[i - 1], shape_b[i - 1]")],
        "broadcasting"),
    "broadcast shapes never checked (numpy's ValueError)": (
        "01", "ops.py", [("        if a != b and a != 1 and b != 1:\n", "        if False:\n")],
        "broadcasting"),
    # ------------------------------------------------------------ 02: the graph
    "next_functions in reverse order": (
        "02", "graph.py", [("tuple(gradient_edge(t) for t in inputs)",
                            "tuple(gradient_edge(t) for t in reversed(inputs))")],
        "next_functions of the lecture's cost"),
    "the result does not require grad": (
        "02", "graph.py", [("    output._requires_grad = True\n", "")], "records its grad_fn"),
    "a new AccumulateGrad at every use of a leaf": (
        "02", "graph.py", [("    node = tensor._accumulator() if tensor._accumulator is not None "
                            "else None\n", "    node = None\n")], "one AccumulateGrad per leaf"),
    "the leaf holds its AccumulateGrad strongly": (
        "02", "graph.py", [("        tensor._accumulator = weakref.ref(node)\n",
                            "        tensor._accumulator = lambda node=node: node\n")],
        "goes away with its graph"),
    "an edge numbered 1": (
        "02", "graph.py", [("        return tensor.grad_fn, 0\n", "        return tensor.grad_fn, 1\n")],
        "next_functions of the lecture's cost"),
    "a constant linked as a node": (
        "02", "graph.py", [("    if not tensor.requires_grad:\n        return None, 0\n", "")],
        "need no grad get (None, 0)"),
    "a mul node misnamed": (
        "02", "ops.py", [("class MulBackward0(Op):\n",
                          "class MulBackward0(Op):\n    def name(self):\n"
                          "        return 'MulBackward'\n")], "node names"),
    "2 - x recorded as a subtraction": (
        "02", "ops.py", [("    Tensor.__rsub__ = lambda self, number: apply(RsubBackward1, self, "
                          "other=number)\n",
                          "    Tensor.__rsub__ = lambda self, number: as_tensor(number, self) - "
                          "self\n")], "node names"),
    "2 / x recorded as a division": (
        "02", "ops.py", [("    Tensor.__rtruediv__ = lambda self, number: self.reciprocal() * "
                          "number\n",
                          "    Tensor.__rtruediv__ = lambda self, number: as_tensor(number, self) "
                          "/ self\n")], "node names"),
    "count_dependencies counts nodes, not edges": (
        "02", "engine.py", [("            counts[next_node] = counts.get(next_node, 0) + 1\n",
                             "            counts[next_node] = 1\n")], "count_dependencies"),
    "count_dependencies puts the roots in with 0": (
        "02", "engine.py", [("    counts, seen, todo = {}, set(roots), list(roots)\n",
                             "    counts, seen, todo = dict.fromkeys(roots, 0), set(roots), "
                             "list(roots)\n")], "count_dependencies"),
    "a recursive count_dependencies": (
        "02", "engine.py", [("BLOCK:walk the graph with a to-do list", RECURSIVE_COUNT)],
        "count_dependencies"),
    # ------------------------------------------------------------ 03: formulas and the engine
    "add gives the gradient to the first input only": (
        "03", "ops.py", [("        return grad, grad\n", "        return grad, None\n")],
        "formula of a + b"),
    "sub does not negate b's gradient": (
        "03", "ops.py", [("        return grad, -grad\n", "        return grad, grad\n")],
        "formula of a - b"),
    "mul multiplies by the wrong saved input": (
        "03", "ops.py", [("        return (grad * self._saved_other if self.needs_input_grad[0] else "
                          "None,\n                grad * self._saved_self if",
                          "        return (grad * self._saved_self if self.needs_input_grad[0] else "
                          "None,\n                grad * self._saved_other if")],
        "formula of a * b"),
    "mul ignores needs_input_grad": (
        "03", "ops.py", [("        return (grad * self._saved_other if self.needs_input_grad[0] else "
                          "None,\n                grad * self._saved_self if self.needs_input_grad[1]"
                          " else None)",
                          "        return (grad * self._saved_other, grad * self._saved_self)")],
        "formula of a * b"),
    "pow's exponent not lowered by one": (
        "03", "ops.py", [("self._saved_self ** (exponent - 1),)", "self._saved_self ** exponent,)")],
        "formula of x ** p"),
    "pow forgets the incoming gradient": (
        "03", "ops.py", [("        return (grad * exponent * self._saved_self ** (exponent - 1),)",
                          "        return (exponent * self._saved_self ** (exponent - 1),)")],
        "formula of x ** p"),
    "sum's gradient not unsqueezed along the summed dim": (
        "03", "ops.py", [("        return (expand(unsqueeze_reduced(grad, self), self.input_shapes[0]),)",
                          "        return (expand(grad, self.input_shapes[0]),)")], "formula of sum"),
    "mean divides by the input's size": (
        "03", "ops.py", [("        count = int(np.prod(self.input_shapes[0])) // grad.numel()",
                          "        count = int(np.prod(self.input_shapes[0]))")], "formula of mean"),
    "an engine without dependency counting": (
        "03", "engine.py", [("BLOCK:run ready nodes newest first", FIRST_REACHED)],
        "after every gradient meant for it"),
    "an engine that runs nodes breadth first, as soon as they are reached": (
        "03", "engine.py", [("BLOCK:run ready nodes newest first", BREADTH_FIRST)],
        "after every gradient meant for it"),
    "the buffer overwritten instead of added to": (
        "03", "engine.py", [("    buffers[node] = grad if node not in buffers else buffers[node] + grad",
                             "    buffers[node] = grad")], "after every gradient meant for it"),
    "sum_to only sums the leading dims": (
        "03", "engine.py", [("    dims = tuple(range(lead)) + tuple(lead + i for i, size in "
                             "enumerate(shape)\n                                      if size == 1 "
                             "and grad.shape[lead + i] != 1)",
                             "    dims = tuple(range(lead))")], "broadcast inputs"),
    "no sum over broadcast dims": (
        "03", "engine.py", [("    if grad.shape == tuple(shape):\n        return grad\n",
                             "    return grad\n")], "broadcast inputs"),
    # ------------------------------------------------------------ 04: leaves and hooks
    "an AccumulateGrad that overwrites": (
        "04", "graph.py", [("            leaf._grad = leaf._grad + grad\n",
                            "            leaf._grad = grad\n")], "accumulate in .grad"),
    "no warning for a non-leaf's .grad": (
        "04", "leaves.py", [("    warnings.warn(NOT_LEAF_WARNING, UserWarning, stacklevel=3)\n",
                             "    pass\n")], "only leaves keep .grad"),
    "requires_grad switched on a non-leaf": (
        "04", "leaves.py", [("    if not t.is_leaf:\n        detach_hint", "    if False:\n        detach_hint")],
        "switched on leaves only"),
    "the requires_grad error without its advice": (
        "04", "leaves.py", [("                           + detach_hint)", ")")],
        "switched on leaves only"),
    "retain_grad marks a leaf too": (
        "04", "leaves.py", [("    if t.is_leaf:\n        return\n    t._retains_grad = True\n",
                             "    t._retains_grad = True\n    if t.is_leaf:\n        return\n")],
        "retain_grad() keeps"),
    "a non-leaf's hooks kept on the tensor": (
        "04", "leaves.py", [("    hooks = t._hooks if t.is_leaf else t.grad_fn.pre_hooks\n",
                             "    hooks = t._hooks\n")], "hooks see the gradient"),
    "hooks ignored": (
        "04", "leaves.py", [("        result = hook(grad)\n", "        result = None\n")],
        "hooks see the gradient"),
    "hooks run last registered first": (
        "04", "leaves.py", [("    for hook in hooks:\n        result = hook(grad)",
                             "    for hook in reversed(hooks):\n        result = hook(grad)")],
        "order they were registered"),
    "every hook sees the original gradient": (
        "04", "leaves.py", [("    for hook in hooks:\n        result = hook(grad)\n"
                             "        grad = grad if result is None else result\n    return grad",
                             "    final = grad\n    for hook in hooks:\n        result = hook(grad)\n"
                             "        final = final if result is None else result\n    return final")],
        "order they were registered"),
    "the retained .grad filled before the hooks run": (
        "04", "leaves.py", [("    grad = run_hooks(node.pre_hooks, grad)\n"
                             "    retained = node.retained() if node.retained is not None else None\n"
                             "    if retained is not None:\n"
                             "        retained._grad = grad if retained._grad is None else "
                             "retained._grad + grad\n    return grad",
                             "    retained = node.retained() if node.retained is not None else None\n"
                             "    if retained is not None:\n"
                             "        retained._grad = grad if retained._grad is None else "
                             "retained._grad + grad\n    return run_hooks(node.pre_hooks, grad)")],
        "replaces the gradient"),
    "the retained .grad overwritten": (
        "04", "leaves.py", [("        retained._grad = grad if retained._grad is None else "
                             "retained._grad + grad\n", "        retained._grad = grad\n")],
        "retain_grad() keeps"),
    "detach copies the numbers": (
        "04", "leaves.py", [("    cut = tensor.Tensor(t.array)\n", "    cut = tensor.Tensor(t.array.copy())\n")],
        "detach() makes a leaf"),
    # ------------------------------------------------------------ 05: saved tensors and versions
    "a wrong derivative of exp": (
        "05", "ops.py", [("        return (grad * self._saved_result,)\n", "        return (grad,)\n")],
        "formula of exp"),
    "log multiplies by its input": (
        "05", "ops.py", [("        return (grad / self._saved_self,)", "        return (grad * self._saved_self,)")],
        "formula of log"),
    "relu lets every gradient through": (
        "05", "ops.py", [("        positive = self._saved_result.array > 0\n",
                          "        positive = self._saved_result.array == self._saved_result.array\n")],
        "formula of relu"),
    "relu's mask includes zero results": (
        "05", "ops.py", [("        positive = self._saved_result.array > 0\n",
                          "        positive = self._saved_result.array >= 0\n")], "formula of relu"),
    "transpose's gradient swaps the last two dims": (
        "05", "ops.py", [('        return (grad.transpose(self.params["dim0"], self.params["dim1"]),)',
                          "        return (grad.transpose(-2, -1),)")], "formula of t()"),
    "a slice's gradient put in the first slots": (
        "05", "ops.py", [('        return (apply(CopySlices, zeros, grad, key=self.params["key"]),)',
                          "        return (apply(CopySlices, zeros, grad, key=tuple(\n"
                          "            slice(0, n) for n in grad.shape)),)")], "formula of slicing"),
    "no version check": (
        "05", "versions.py", [("if self.counter.value != self.version:", "if False:")],
        "a saved tensor changed in place"),
    "the version compared with 0": (
        "05", "versions.py", [("if self.counter.value != self.version:", "if self.counter.value != 0:")],
        "a saved tensor changed in place"),
    "the two versions swapped in the message": (
        "05", "versions.py", [('f"inplace operation: {self.describe()} is at version {self.counter.value}; "\n'
                               '                f"expected version {self.version} instead.',
                               'f"inplace operation: {self.describe()} is at version {self.version}; "\n'
                               '                f"expected version {self.counter.value} instead.')],
        "a saved tensor changed in place"),
    "wrong words in the in-place error": (
        "05", "versions.py", [('"one of the variables needed for gradient computation has been modified',
                               '"a variable needed for gradient computation has been modified')],
        "a saved tensor changed in place"),
    "in place does not bump the version": (
        "05", "versions.py", [("    t._version_counter.value += 1\n", "")], "bump its version"),
    "in place lets a leaf that requires grad change": (
        "05", "versions.py", [("    if t.is_leaf and t.requires_grad and grad_mode.is_grad_enabled():\n",
                               "    if False:\n")], "leaf that requires grad refuses"),
    "t[i] = v on a leaf: the message forgets 'a view of'": (
        "05", "versions.py", [('    view = "a view of " if "key" in params else ""\n', '    view = ""\n')],
        "leaf that requires grad refuses"),
    "in place keeps the old grad_fn": (
        "05", "versions.py", [("        t.grad_fn, t._requires_grad = result.grad_fn, True\n",
                               "        t._requires_grad = True\n")], "CopySlices"),
    "in place applies the op to the tensor itself": (
        "05", "versions.py", [("    result = ops.apply(node_class, before, *values, **params)\n",
                               "    result = ops.apply(node_class, t, *values, **params)\n")],
        "bump its version"),
    # ------------------------------------------------------------ 06: freeing, grad(), create_graph
    "saved tensors never freed": (
        "06", "engine.py", [(RELEASE, "            pass\n")], "frees the saved tensors"),
    "a freed saved tensor unpacks as None": (
        "06", "versions.py", [("            raise RuntimeError(SECOND_BACKWARD_ERROR)\n",
                               "            return None\n")], "frees the saved tensors"),
    "the shape error shows tuples": (
        "06", "engine.py", [('f"torch.Size({list(gradient.shape)}) and output[0] has a shape of "',
                             'f"torch.Size({gradient.shape}) and output[0] has a shape of "')],
        "starting gradient"),
    "the shape error names the shapes the other way round": (
        "06", "engine.py", [('f"torch.Size({list(gradient.shape)}) and output[0] has a shape of "\n'
                             '                       f"torch.Size({list(output.shape)}).")',
                             'f"torch.Size({list(output.shape)}) and output[0] has a shape of "\n'
                             '                       f"torch.Size({list(gradient.shape)}).")')],
        "starting gradient"),
    "grad() accepts an input that does not require grad": (
        "06", "autograd.py", [("    if not all(t.requires_grad for t in inputs):\n",
                               "    if False:\n")], "grad() returns the gradients"),
    "grad() returns None for an unused input without being asked": (
        "06", "autograd.py", [("        if g is None and not allow_unused:\n", "        if False:\n")],
        "grad() returns the gradients"),
    "grad()'s unused-input message counts from 1": (
        "06", "autograd.py", [('f"The differentiated Tensor at index {i} appears',
                               'f"The differentiated Tensor at index {i + 1} appears')],
        "grad() returns the gradients"),
    "tanh's derivative without the square": (
        "06", "ops.py", [("        return (grad * (1 - result * result),)", "        return (grad * (1 - result),)")],
        "formula of tanh"),
    "tanh's derivative computed on numpy (no second derivative)": (
        "06", "ops.py", [("        return (grad * (1 - result * result),)",
                          "        return (grad * tensor.Tensor(1 - result.array ** 2),)")],
        "tanh's first three derivatives"),
    "sigmoid forgets the incoming gradient": (
        "06", "ops.py", [("        return (grad * result * (1 - result),)", "        return (result * (1 - result),)")],
        "formula of sigmoid"),
    "division: b's gradient with the wrong sign": (
        "06", "ops.py", [("-grad * self._saved_self / (other * other)", "grad * self._saved_self / (other * other)")],
        "formula of a / b"),
    # ------------------------------------------------------------ 07: grad mode, .data
    "a no_grad that still records": (
        "07", "grad_mode.py", [("        set_enabled(self.mode)\n", "        set_enabled(True)\n")],
        "nothing is recorded inside no_grad()"),
    "__exit__ switches recording on instead of back": (
        "07", "grad_mode.py", [("        set_enabled(self.previous)\n", "        set_enabled(True)\n")],
        "enable_grad inside no_grad"),
    "a decorator that does not restore the mode after an error": (
        "07", "grad_mode.py", [("BLOCK:return a wrapper that runs function inside the switch",
                                NO_FINALLY_DECORATOR)], "decorators"),
    "a shared counter for .data": (
        "07", "versions.py", [("    return tensor.Tensor(t.array)\n",
                               "    alias = tensor.Tensor(t.array)\n"
                               "    alias._version_counter = t._version_counter\n"
                               "    return alias\n")], ".data has a counter of its own"),
    ".data copies the numbers": (
        "07", "versions.py", [("    return tensor.Tensor(t.array)\n", "    return tensor.Tensor(t.array.copy())\n")],
        ".data has a counter of its own"),
    # ------------------------------------------------------------ 08: Function, gradcheck
    "a Function node not named after its class": (
        "08", "function.py", [('type(f"{cls.__name__}Backward"', 'type("BackwardFunction"')],
        "named after the class"),
    "needs_input_grad overwritten by the recording": (
        "08", "function.py", [("            ctx.needs_input_grad = flags\n", "")], "needs_input_grad"),
    "forward runs with recording on": (
        "08", "function.py", [("        with grad_mode.no_grad():\n            output = cls.forward(ctx, *args)",
                               "        if True:\n            output = cls.forward(ctx, *args)")],
        "named after the class"),
    "the numbers' None gradients kept": (
        "08", "function.py", [("        return [g for g, is_tensor in zip(grads, self.is_tensor) if is_tensor]",
                               "        return [g for g in grads if g is not None]")], "needs_input_grad"),
    "save_for_backward takes a number": (
        "08", "function.py", [("            if not isinstance(t, tensor.Tensor):\n",
                               "            if t is None:\n")], "saving a number, a wrong number"),
    "the gradient-count message swaps its numbers": (
        "08", "function.py", [('f"gradients (expected {len(self.is_tensor)}, got {len(grads)})")',
                               'f"gradients (expected {len(grads)}, got {len(self.is_tensor)})")')],
        "saving a number, a wrong number"),
    "central differences divided by eps, not 2 eps": (
        "08", "function.py", [("            rows.append((above - below) / (2 * eps))",
                               "            rows.append((above - below) / eps)")], "gradcheck"),
    "a transposed analytical Jacobian": (
        "08", "function.py", [("    return np.array(columns).T\n", "    return np.array(columns)\n")],
        "gradcheck"),
    # ------------------------------------------------------------ 09: networks
    "mm: A's gradient without the transpose": (
        "09", "ops.py", [("        return (grad @ self._saved_mat2.t() if", "        return (grad @ self._saved_mat2 if")],
        "formula of A @ B"),
    "mm: B's gradient multiplied on the wrong side": (
        "09", "ops.py", [("                self._saved_self.t() @ grad if self.needs_input_grad[1] else None)\n"
                          "        ### END SOLUTION\n\nclass MvBackward0",
                          "                grad.t() @ self._saved_self if self.needs_input_grad[1] else None)\n"
                          "        ### END SOLUTION\n\nclass MvBackward0")], "formula of A @ B"),
    "mv: v's gradient without the transpose": (
        "09", "ops.py", [("                self._saved_self.t() @ grad if self.needs_input_grad[1] else None)\n"
                          "        ### END SOLUTION\n\n# -",
                          "                self._saved_self.reshape(-1) if self.needs_input_grad[1] else None)\n"
                          "        ### END SOLUTION\n\n# -")], "formula of A @ v"),
    "named_parameters without the sub-module's prefix": (
        "09", "nn.py", [('value.named_parameters(prefix + name + ".")', "value.named_parameters(prefix)")],
        "Module finds its parameters"),
    "a log-softmax that overflows": (
        "09", "nn.py", [("    shifted = logits - tensor.Tensor(logits.array.max(axis=1, keepdims=True))\n",
                         "    shifted = logits\n")], "a stable log-softmax"),
    "cross entropy summed over the batch": (
        "09", "nn.py", [("    return -(log_probs * one_hot).sum() / logits.shape[0]",
                         "    return -(log_probs * one_hot).sum()")], "a stable log-softmax"),
    "an SGD without momentum buffer": (
        "09", "optim.py", [(MOMENTUM, "                if False:\n")], "SGD with momentum"),
    "SGD updates while recording": (
        "09", "optim.py", [("        with grad_mode.no_grad():\n            for p in self.params:",
                            "        if True:\n            for p in self.params:")], "SGD with momentum"),
    # ------------------------------------------------------------ 10: the tracer
    "a tracer that runs the function again": (
        "10", "tracer.py", [("BLOCK:run forward instruction by instruction", RERUN_INSTEAD_OF_REPLAY),
                            ("    program.output = program.number[id(output)]\n",
                             "    program.output, program.function = program.number[id(output)], "
                             "function\n")], "the branch is frozen"),
    "constants not copied at trace time": (
        "10", "tracer.py", [("self.constants[self.number[id(t)]] = t.array.copy()",
                             "self.constants[self.number[id(t)]] = t.array")], "frozen at trace time"),
    "the recording flag left on after an error": (
        "10", "tracer.py", [("BLOCK:record a run of the function into a new Program", TRACE_WITHOUT_FINALLY)],
        "after a function that raises"),
    "the replay does not sum broadcast gradients back": (
        "10", "tracer.py", [("                        g = engine.sum_to(g, shape)\n", "")],
        "broadcasting inside a traced program"),
    "the replay overwrites a gradient reaching a value twice": (
        "10", "tracer.py", [("                        grads[name] = g if name not in grads else grads[name] + g",
                             "                        grads[name] = g")], "the replay runs forward and backward"),
}

HARMLESS = {
    "Tensor.__init__ with np.array(data, dtype)": (
        "tensor.py", [("        self.array = array if dtype is None else array.astype(dtype, copy=False)",
                       "        self.array = array if dtype is None else np.asarray(array, dtype)")]),
    "sum_to also sums dims that were 1 already": (
        "engine.py", [("                                      if size == 1 and grad.shape[lead + i] != 1)",
                       "                                      if size == 1)")]),
    "an engine that takes the newest ready node from a list": (
        "engine.py", [("BLOCK:run ready nodes newest first", SORTED_LIST_ENGINE)]),
    "count_dependencies with a queue instead of a stack": (
        "engine.py", [("        node = todo.pop()\n", "        node = todo.pop(0)\n")]),
    "mul written with the saved tensor first": (
        "ops.py", [("        return (grad * self._saved_other if self.needs_input_grad[0] else None,",
                    "        return (self._saved_other * grad if self.needs_input_grad[0] else None,")]),
    "hooks that keep a replacement with an if": (
        "leaves.py", [("        grad = grad if result is None else result\n",
                       "        if result is not None:\n            grad = result\n")]),
    "mean's gradient as a product with 1 / count": (
        "ops.py", [("        return (super().backward(grad)[0] / count,)",
                    "        return (super().backward(grad)[0] * (1 / count),)")]),
    "SGD's first buffer built from zeros": (
        "optim.py", [("                    step = step.clone() if buffer is None else buffer * self.momentum + step",
                      "                    buffer = tensor.zeros(*p.shape) if buffer is None else buffer\n"
                      "                    step = buffer * self.momentum + step"),
                     ("from . import grad_mode\n", "from . import grad_mode, tensor\n")]),
    "relu's mask from the result's sign": (
        "ops.py", [("        positive = self._saved_result.array > 0\n",
                    "        positive = np.sign(self._saved_result.array) == 1\n")]),
}
