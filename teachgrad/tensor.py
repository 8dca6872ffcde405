"""The Tensor: a numpy array plus what autograd needs to know about it.

A tensor owns (or, for a view, shares) a numpy array and a ``VersionCounter``.
Autograd adds three things: ``requires_grad``, ``grad_fn`` (the node that made
it, None for a leaf) and ``grad``. Operations and tensor methods such as
``x.exp()`` are attached to this class by ``teachgrad.ops``.
"""
import numbers
import warnings
import weakref

import numpy as np

from teachgrad import devices, dtypes, ieee, printing
from teachgrad.autograd import engine, forward_ad, grad_mode, views
from teachgrad.autograd.graph import AccumulateGrad, HookDict, add_hook


class VersionCounter:
    """Counts in-place changes of a tensor's memory; shared by all views of it."""
    __slots__ = ("version",)
    inference = False     # is its tensor an inference tensor? (see grad_mode.INFERENCE)

    def __init__(self):
        self.version = 0

    def bump(self):
        self.version += 1


class InferenceVersionCounter:
    """The counter of an inference tensor that still counts its in-place changes:
    ``detach()`` or ``.data`` of an inference tensor, taken outside inference_mode (with a
    counter of its own), or a normal tensor given an inference tensor's ``.data`` (it keeps
    the counter it shares with its views). As in PyTorch, the tensor is an inference tensor
    (it may not be saved for backward; its views have no counter), but its in-place changes
    are allowed and counted outside inference_mode; inside the mode they are not counted."""
    __slots__ = ("counter",)
    inference = True

    def __init__(self, counter=None):
        self.counter = VersionCounter() if counter is None else counter

    @property
    def version(self):
        return self.counter.version

    def bump(self):
        if not grad_mode._state["inference"]:
            self.counter.bump()


def new_version_counter():
    """A fresh counter; inside inference_mode, the mark of an inference tensor instead."""
    return grad_mode.INFERENCE if grad_mode._state["inference"] else VersionCounter()


class Size(tuple):
    """A shape, printed as ``teachgrad.Size([2, 3])``."""

    def numel(self):
        return int(np.prod(self, dtype=np.int64))

    def __repr__(self):
        return f"teachgrad.Size({list(self)})"


NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information.")


_scalar_warning_given = False


def _warn_scalar_conversion():
    """PyTorch warns once a process, the first time ``float(x)`` meets a tensor that
    requires grad: the number carries no graph, so nothing flows back through it."""
    global _scalar_warning_given
    _scalar_warning_given = True
    warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to "
                  "unexpected behavior.\nConsider using tensor.detach() first.", UserWarning,
                  stacklevel=3)


class Tensor:
    __module__ = "teachgrad"  # type(x) prints <class 'teachgrad.Tensor'>, as torch's torch.Tensor
    # Every tensor sets the four fields in __slots__; the rest are rare, so they
    # default to these class attributes and only a tensor that needs one stores it.
    __slots__ = ("_data", "_version_counter", "_grad_fn", "_requires_grad",
                 "__weakref__", "__dict__")
    _base = None              # the tensor whose memory this view shares
    _view_replay = None       # how to make this view again from its base
    _view_version = 0         # the version at which this view's grad_fn was made
    _grad = None
    _output_nr = 0            # which output of grad_fn this tensor is
    _retains_grad = False
    _accumulator_ref = None   # weak link to this leaf's AccumulateGrad node
    _hooks = None             # a leaf's tensor hooks
    _multi_output_view = False    # a piece of split/chunk/unbind: no in-place change then
    _made_in_no_grad = False      # a view made under no_grad (or inference_mode), or a view of one
    _made_in_inference_mode = False     # ... made in inference_mode
    _sent_down_several_edges = False    # a gradient the engine gave to several nodes
    _wrapped_number = False       # a Python number made a 0-d tensor for an operation

    def __init__(self, *data_or_shape, device=None):
        """``Tensor([1, 2])`` or ``Tensor(2, 3)`` makes a float tensor, like ``torch.Tensor``."""
        devices.check_legacy(device)
        self._data = legacy_array(data_or_shape, dtypes.get_default_dtype().numpy)
        self._version_counter = new_version_counter()
        self._grad_fn = None
        self._requires_grad = False

    @classmethod
    def _make(cls, array, version_counter=None):
        """Wrap a numpy array without copying (the fast path every operation uses)."""
        if array.__class__ is not np.ndarray:     # numpy returns scalars for 0-d results
            array = np.asarray(array)
        tensor = object.__new__(cls)
        tensor._data = array
        tensor._version_counter = version_counter or new_version_counter()
        tensor._grad_fn = None
        tensor._requires_grad = False
        return tensor

    @property
    def grad_fn(self):
        """The node that made this tensor (None for a leaf).

        A view whose base was changed in place since gets a fresh node first, so
        that its gradient flows through the base's new history (as in PyTorch).
        """
        if self._base is not None and self._view_version != self._version_counter.version:
            views.refresh_view_history(self)
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node):
        """Only operations set grad_fn: assigning it is refused, as in PyTorch."""
        raise AttributeError("attribute 'grad_fn' of 'teachgrad.Tensor' objects is not writable")

    # ---- autograd flags -------------------------------------------------
    @property
    def requires_grad(self):
        if self._base is not None and not self._requires_grad:
            return self._base.requires_grad      # a view asks its base, which may require it since
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        if self.grad_fn is not None:
            message = "you can only change requires_grad flags of leaf variables."
            if not flag:
                message += (" If you want to use a computed variable in a subgraph that doesn't "
                            "require differentiation use var_no_grad = var.detach().")
            raise RuntimeError(message)
        if flag and not self.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        if flag and self.is_inference() and not grad_mode.is_inference_mode_enabled():
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        self._requires_grad = bool(flag)

    def requires_grad_(self, requires_grad=True):
        if requires_grad and not self.dtype.is_floating_point:    # PyTorch's wording differs here
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and self._grad_fn is not None:
            return self           # a non-leaf already requires grad: nothing to change
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def _version(self):
        if self._version_counter is grad_mode.INFERENCE:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._version_counter.version

    def is_inference(self):
        """Was this tensor made inside ``inference_mode`` (or is it a view of one)?"""
        return self._version_counter.inference

    @property
    def output_nr(self):
        """Which output of its ``grad_fn`` this tensor is (0 for most, and for a leaf)."""
        return self._output_nr

    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains_grad:   # (PyTorch reads the field too)
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' "
                                   f"to a tensor of size '{list(self.shape)}'. Please ensure "
                                   "that the gradient and the tensor are the same size")
        self._grad = value

    @property
    def retains_grad(self):
        return self._retains_grad

    # ---- data, shape and conversion to Python ---------------------------
    @property
    def data(self):
        """The same memory without autograd: a fresh version counter, so edits go unseen
        (an inference tensor's ``.data`` is its ``detach()``)."""
        if self.is_inference():
            return self.detach()
        return Tensor._make(self._data, VersionCounter())

    @data.setter
    def data(self, other):
        """Swap in ``other``'s memory, keeping this tensor's version counter. Given an
        inference tensor's memory, a normal tensor becomes an inference tensor (as in PyTorch)."""
        self._data = other._data
        if other.is_inference() and not self.is_inference():
            self._version_counter = InferenceVersionCounter(self._version_counter)

    @property
    def dtype(self):
        return dtypes.BY_NUMPY[self._data.dtype]

    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return self.shape
        return self._data.shape[self._wrap_dim(dim)]

    def _wrap_dim(self, dim):
        ndim = max(self._data.ndim, 1)
        if not -ndim <= dim < ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-ndim}, {ndim - 1}], but got {dim})")
        return dim % ndim

    def dim(self):
        return self._data.ndim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def data_ptr(self):
        """The address of the first element: views of one tensor share memory there."""
        return self._data.__array_interface__["data"][0] if self._data.size else 0

    def is_contiguous(self):
        return self._data.flags.c_contiguous

    def stride(self, dim=None):
        """How many elements apart neighbours along each dimension are in memory."""
        steps = tuple(step // self._data.itemsize for step in self._data.strides)
        if dim is None:
            return steps
        if not steps:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return steps[self._wrap_dim(dim)]

    def storage_offset(self):
        """Where the tensor starts in the memory it shares with its views, in elements."""
        return memory_of(self._data)[1]

    def _is_view(self):
        return self._base is not None

    @property
    def device(self):
        return devices.CPU

    is_cuda = False

    def cpu(self):
        return self

    def cuda(self, device=None, non_blocking=False):
        """PyTorch's error for a build without CUDA (teachgrad has only the CPU)."""
        devices.check("cuda")

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def numpy(self):
        """The same memory as a numpy array (not allowed while autograd could record it)."""
        if self._requires_grad and grad_mode.is_grad_enabled():
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        return array if dtype is None else ieee.cast(array, dtype)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __float__(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if self._requires_grad and not _scalar_warning_given:
            _warn_scalar_conversion()
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()))

    def __iter__(self):
        """The rows, from ``unbind(0)``: one node (UnbindBackward0) for all, as in PyTorch."""
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __contains__(self, element):
        """``x in t``: is any element of ``t`` equal to ``x``? (PyTorch's, not row by row.)"""
        if not isinstance(element, (Tensor, numbers.Number)):
            raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you "
                               f"passed in a {type(element)}.")
        return bool((element == self).any().item())

    __hash__ = object.__hash__

    def __format__(self, spec):
        """``f"{loss:.3f}"`` formats a one-number tensor like the number, as in PyTorch."""
        if self._data.ndim == 0 and type(self) is Tensor:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __repr__(self):
        try:
            grad_fn = type(self.grad_fn).__name__ if self.grad_fn is not None else None
        except RuntimeError:        # a view whose history cannot follow an in-place change
            grad_fn = "Invalid"     # (PyTorch prints the same)
        return printing.format_tensor(self._data, dtype_name=repr(self.dtype),
                                      requires_grad=self._requires_grad, grad_fn_name=grad_fn,
                                      tangent_text=forward_ad.tangent_text(self))

    # ---- detaching ------------------------------------------------------
    def detach(self):
        """Same memory and same version counter, but outside the graph. (An inference
        tensor's, taken outside inference_mode, gets a counter of its own, as in PyTorch.)"""
        counter = self._version_counter
        if counter.inference:
            counter = (grad_mode.INFERENCE if grad_mode.is_inference_mode_enabled()
                       else InferenceVersionCounter())
        return Tensor._make(self._data, counter)

    def detach_(self):
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._requires_grad = False
        return self

    # ---- copying and pickling --------------------------------------------
    def __reduce_ex__(self, protocol):
        """Pickle the values and ``requires_grad`` only: a loaded tensor is a fresh leaf
        (no graph, no ``.grad``), as with ``torch.save``."""
        return _rebuild_tensor, (type(self), np.array(self._data), self._requires_grad)

    def __deepcopy__(self, memo):
        """A leaf is copied with its ``.grad``; PyTorch refuses a tensor with history."""
        if not self.is_leaf:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment.  If you were attempting to deepcopy a module, "
                "this may be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001")
        copy = _rebuild_tensor(type(self), np.array(self._data), self._requires_grad)
        memo[id(self)] = copy
        if self._grad is not None:
            copy._grad = self._grad.__deepcopy__(memo)
        return copy

    # ---- gradients ------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        from teachgrad.autograd import functional
        functional.backward(self, gradient, retain_graph, create_graph, inputs)

    def retain_grad(self):
        """Keep this non-leaf tensor's gradient in ``.grad`` during backward."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:   # (as PyTorch, the node as stored:
            return                                        # a stale view's is not renewed yet)
        node = self.grad_fn
        self._retains_grad = True
        node._set_retain_grad_hook(self._output_nr, _RetainGradHook(self))

    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; it may return a new one."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = HookDict()
            return add_hook(self._hooks, hook)
        return self.grad_fn._register_tensor_hook(self._output_nr, hook)

    def _gradient_edge(self):
        """Where this tensor's gradient goes: ``(node, input_nr)``, or ``(None, 0)``."""
        grad_fn = self._grad_fn if self._base is None else self.grad_fn   # a view: maybe refreshed
        if grad_fn is not None:
            return (grad_fn, self._output_nr)
        if self._requires_grad and not self._made_in_no_grad:
            return (self._grad_accumulator(), 0)
        return (None, 0)        # also a view made under no_grad: PyTorch drops its gradient

    def _grad_accumulator(self):
        """This leaf's AccumulateGrad node, made once and shared while a graph uses it.

        The tensor holds it only weakly (the node holds the tensor), so no cycle forms.
        """
        node = self._accumulator_ref() if self._accumulator_ref is not None else None
        if node is None:
            node = AccumulateGrad(self)
            self._accumulator_ref = weakref.ref(node)
        return node

    def _accumulate_grad(self, grad):
        """Add an incoming gradient into ``.grad`` (AccumulateGrad's one job).

        The first gradient is kept as it is (its version too), without a copy, when nobody
        else can hold it and it is laid out in memory like the leaf. A copy, in the leaf's
        layout, is made if a hook on this leaf saw it, if the engine also sent it to another
        node, or if its memory is read-only or ordered differently (a broadcast, a transpose).
        PyTorch "steals" the gradient in the same situation, and gives ``.grad`` the
        leaf's layout too. Its copy is an empty tensor written with ``copy_``: version 1,
        and under ``create_graph=True`` (always copied then) a ``CopyBackwards`` node.
        """
        building_graph = grad_mode.is_grad_enabled()
        if self._grad is None:
            if building_graph:
                self._grad = Tensor._make(np.empty_like(self._data)).copy_(grad)
            elif (grad._data.flags.writeable and not self._hooks
                    and not grad._sent_down_several_edges and _same_layout(grad._data, self._data)):
                self._grad = grad.detach()      # stolen, version and all (as in PyTorch)
            else:
                self._grad = Tensor._make(_copy_like(grad._data, self._data))
                self._grad._version_counter.bump()      # (PyTorch's copy_ counts as a change)
        elif building_graph:
            self._grad = self._grad + grad
        else:       # in place, even into a .grad with a graph of its own (as in PyTorch)
            engine.add_into(self._grad, grad)

    def _add_retained_grad(self, grad):
        """A non-leaf's gradient into its ``.grad`` (for retain_grad and backward(inputs=...))."""
        if self._grad is None:
            self._grad = Tensor._make(grad._data.copy()) if not grad._requires_grad else grad
        else:
            self._grad = self._grad + grad


def legacy_array(data_or_shape, numpy_dtype):
    """The array of ``Tensor(...)`` or ``FloatTensor(...)``: a shape (``Tensor(2, 3)``;
    PyTorch leaves the memory uninitialised, teachgrad fills it with zeros) or data
    (``Tensor([1, 2])``)."""
    if not data_or_shape:
        return np.zeros(0, numpy_dtype)
    if len(data_or_shape) == 1 and not isinstance(data_or_shape[0], (Size, numbers.Integral)):
        return ieee.cast(np.asarray(data_or_shape[0]), numpy_dtype)
    shape = data_or_shape[0] if len(data_or_shape) == 1 and isinstance(data_or_shape[0], Size) \
        else data_or_shape
    return np.zeros(shape, numpy_dtype)


def memory_of(a):
    """The memory a numpy array lies in, as a flat array, and where ``a`` starts in it
    (PyTorch's storage and storage offset)."""
    owner = a
    while True:
        if isinstance(owner.base, np.ndarray):
            owner = owner.base
        elif isinstance(getattr(owner.base, "base", None), np.ndarray):
            owner = owner.base.base       # (numpy's as_strided keeps its input there)
        else:
            break
    flat = np.lib.stride_tricks.as_strided(owner, (owner.nbytes // a.itemsize,), (a.itemsize,),
                                           writeable=owner.flags.writeable)
    start = a.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    return flat, start // a.itemsize


def _same_layout(array, like):
    """Do the two arrays (of one shape) step through memory alike? Dimensions of size 1 do
    not count, unless their stride is 0 (a broadcast view)."""
    if array.strides == like.strides:
        return True
    for size, stride, like_stride in zip(array.shape, array.strides, like.strides):
        if size == 1:
            if stride == 0:
                return False
        elif stride != like_stride:
            return False
    return True


def _copy_like(array, like):
    """A copy of ``array`` laid out in memory as ``like`` is (numpy's ``order="K"``)."""
    copy = np.empty_like(like)
    copy[...] = array
    return copy


def _rebuild_tensor(cls, array, requires_grad):
    tensor = cls._make(array)
    tensor._requires_grad = requires_grad
    return tensor


class _RetainGradHook:
    """Stores a non-leaf tensor's gradient in its ``.grad`` (holds the tensor weakly)."""

    def __init__(self, tensor):
        self.tensor_ref = weakref.ref(tensor)

    def __call__(self, grad):
        tensor = self.tensor_ref()
        if tensor is not None:
            tensor._add_retained_grad(grad)
