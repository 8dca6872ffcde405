"""einsum, Einstein summation, computed as PyTorch computes it.

``einsum("ij,jk->ik", a, b)`` names each dimension of each operand with a letter: the
operands are multiplied along the letters they share, and the letters the output leaves
out are summed. ``...`` stands for the dimensions no letter names (they broadcast).
"""
import re
import string
from collections import Counter

import numpy as np

from teachgrad.tensor import Tensor

ELLIPSIS = "..."
LETTERS = string.ascii_uppercase + string.ascii_lowercase    # PyTorch's order of labels


def einsum(*args):
    """``einsum("ij,jk->ik", a, b)``: multiply the operands along the labels they share and
    sum the labels the output leaves out. Also ``einsum(equation, [a, b])`` and the sublist
    form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``.

    As in PyTorch, each operand is first aligned to one order of all labels (output labels
    first), then the operands are contracted left to right, two at a time, each pair with one
    bmm (``_sum_product``); so the graph shows permutes, views and bmm, as PyTorch's does.
    """
    equation, operands = _einsum_arguments(args)
    labels, order, output_ndim = _parse_equation(equation, operands)
    sizes, counts = {}, [0] * len(order)
    aligned = [_align(operand, operand_labels, number, order, sizes, counts)
               for number, (operand, operand_labels) in enumerate(zip(operands, labels))]
    result = _contract(aligned, output_ndim, counts)
    if len(order) == output_ndim:
        return result
    if len(operands) > 1:       # the contracted dimensions are of size 1 by now
        return result.view(result.shape[:output_ndim])
    return result.sum(tuple(range(output_ndim, len(order))))


def _einsum_arguments(args):
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], Tensor):
        return _sublist_equation(args)
    equation, operands = args[0], list(args[1:])
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):    # einsum(eq, [a, b])
        return _einsum_arguments((equation, *operands[0]))
    for number, operand in enumerate(operands):
        if not isinstance(operand, Tensor):
            raise TypeError(f"expected Tensor as element {number} in argument 1, but got "
                            f"{type(operand).__name__}")
    return equation, operands


def _sublist_equation(args):
    """``(a, [0, 1], b, [1, 2], [0, 2])`` as ``("AB,BC->AC", [a, b])``: subscripts 0-51 are
    the letters A-Z, a-z, and ``...`` is ``Ellipsis``."""
    def letters(sublist):
        return "".join(ELLIPSIS if subscript is Ellipsis else _subscript_letter(subscript)
                       for subscript in sublist)
    equation = ",".join(letters(sublist) for sublist in args[1::2])
    if len(args) % 2:
        return equation + "->" + letters(args[-1]), list(args[:-1:2])
    return equation, list(args[::2])


def _subscript_letter(subscript):
    if not 0 <= subscript < len(LETTERS):
        raise ValueError("einsum(): subscript in subscript list is not within the valid range "
                         "[0, 52)")
    return LETTERS[subscript]


def _tokens(text):
    """The characters of one side of an equation, with their index; ``...`` is one token."""
    return [(match.start(), match.group()) for match in re.finditer(r"\.\.\.|.", text, re.DOTALL)]


def _check_letter(token, index):
    if token not in LETTERS:
        raise RuntimeError(f"einsum(): invalid subscript given at index {index} in the equation "
                           f"string, subscripts must be in [a-zA-Z]")
    return token


def _parse_equation(equation, operands):
    """Each operand's labels, the order of all labels the operands are aligned to (the
    output's first, then the summed ones) and the output's number of dimensions. A label is
    a letter, or, for the dimensions an ellipsis covers, a number: 0, 1, ... from the left of
    the widest ellipsis. The ellipsis is in the output unless an explicit output leaves it out."""
    inputs, arrow, output = equation.partition("->")
    labels = _parse_inputs(inputs, len(operands))
    ellipsis_ndim = _check_operand_dims(labels, operands)
    labels = [_expand_ellipsis(operand_labels, operand.ndim, ellipsis_ndim)
              for operand_labels, operand in zip(labels, operands)]
    counts = Counter(label for operand_labels in labels for label in operand_labels
                     if isinstance(label, str))
    ellipsis = list(range(ellipsis_ndim))
    if arrow:
        output_labels = _parse_output(output, len(inputs) + 2, counts)
        if ELLIPSIS in output_labels:
            position = output_labels.index(ELLIPSIS)
            output_labels[position:position + 1] = ellipsis
    else:       # implicit output: the ellipsis, then the letters used once, in order
        output_labels = ellipsis + sorted((label for label in counts if counts[label] == 1),
                                          key=LETTERS.index)
    summed = [dim for dim in ellipsis if dim not in output_labels] + \
        sorted((label for label in counts if label not in output_labels), key=LETTERS.index)
    return labels, output_labels + summed, len(output_labels)


def _parse_inputs(inputs, operand_count):
    labels, has_ellipsis = [[]], False
    for index, token in _tokens(inputs):
        number = len(labels) - 1
        if token == ",":
            labels.append([])
            has_ellipsis = False
            if len(labels) > operand_count:
                raise RuntimeError("einsum(): fewer operands were provided than specified in "
                                   "the equation")
        elif token[0] == ".":
            if has_ellipsis:
                raise RuntimeError(f"einsum(): found '.' for operand {number} for which an "
                                   f"ellipsis was already found")
            if token != ELLIPSIS:
                raise RuntimeError(f"einsum(): found '.' for operand {number} that is not part "
                                   f"of any ellipsis")
            labels[-1].append(ELLIPSIS)
            has_ellipsis = True
        elif token != " ":
            labels[-1].append(_check_letter(token, index))
    if len(labels) < operand_count:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return labels


def _parse_output(output, offset, counts):
    labels = []
    for index, token in _tokens(output):
        if token[0] == ".":
            if ELLIPSIS in labels:
                raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was "
                                   "already found")
            if token != ELLIPSIS:
                raise RuntimeError("einsum(): found '.' for output that is not part of any "
                                   "ellipsis (...)")
            labels.append(ELLIPSIS)
        elif token != " ":
            label = _check_letter(token, offset + index)
            if label not in counts:
                raise RuntimeError(f"einsum(): output subscript {label} does not appear in the "
                                   f"equation for any input operand")
            if label in labels:
                raise RuntimeError(f"einsum(): output subscript {label} appears more than once "
                                   f"in the output")
            labels.append(label)
    return labels


def _check_operand_dims(labels, operands):
    """Check each operand has one dimension per label; return the ellipsis's width."""
    ellipsis_ndim = 0
    for number, (operand_labels, operand) in enumerate(zip(labels, operands)):
        letters = len(operand_labels) - operand_labels.count(ELLIPSIS)
        if ELLIPSIS in operand_labels:
            if letters > operand.ndim:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                                   f"({letters}) is more than the number of dimensions "
                                   f"({operand.ndim}) for operand {number}")
            ellipsis_ndim = max(ellipsis_ndim, operand.ndim - letters)
        elif letters != operand.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({letters}) "
                               f"does not match the number of dimensions ({operand.ndim}) for "
                               f"operand {number} and no ellipsis was given")
    return ellipsis_ndim


def _expand_ellipsis(labels, ndim, ellipsis_ndim):
    """An operand's ellipsis covers the last of the ellipsis dimensions (they broadcast)."""
    if ELLIPSIS not in labels:
        return labels
    position = labels.index(ELLIPSIS)
    covered = ndim - (len(labels) - 1)
    return labels[:position] + list(range(ellipsis_ndim - covered, ellipsis_ndim)) + \
        labels[position + 1:]


def _align(operand, labels, number, order, sizes, counts):
    """Permute ``operand`` to ``order``: the diagonal for a repeated label, a new dimension of
    size 1 for a label it lacks. Checks the sizes broadcast (``sizes``: each label's size so
    far) and counts, for each label, the operands where its size is not 1 (``counts``)."""
    permutation = [None] * len(order)       # aligned position -> dimension of the operand
    dim = 0
    for label in labels:
        position = order.index(label)
        first = permutation[position]
        if first is None:
            size = operand.shape[dim]
            if size != 1:
                _check_label_size(label, size, sizes.get(label, 1), number, dim)
                sizes[label] = size
                counts[position] += 1
            permutation[position] = dim
            dim += 1
        else:
            if operand.shape[dim] != operand.shape[first]:
                raise RuntimeError(f"einsum(): subscript {label} is repeated for operand {number} "
                                   f"but the sizes don't match, {operand.shape[dim]} != "
                                   f"{operand.shape[first]}")
            operand = operand.diagonal(0, first, dim).movedim(-1, first)
    for position, taken in enumerate(permutation):
        if taken is None:
            operand = operand.unsqueeze(dim)
            permutation[position] = dim
            dim += 1
    return operand.permute(permutation)


def _check_label_size(label, size, seen, number, dim):
    if seen not in (1, size):
        if isinstance(label, str):
            raise RuntimeError(f"einsum(): subscript {label} has size {size} for operand {number} "
                               f"which does not broadcast with previously seen size {seen}")
        raise RuntimeError(f"einsum(): dimension {dim} covered by ellipsis in operand {number}"
                           f"has size {size} which does not broadcast with previously seen "
                           f"ellipsis with size {seen} for the respective dimension")


def _contract(operands, output_ndim, counts):
    """Multiply the aligned operands left to right. A contracted dimension is summed as soon
    as no operand still to come has it: in the product of a pair if both have it, before the
    product if only one does."""
    operands = list(operands)
    while len(operands) > 1:
        a, b = operands.pop(0), operands.pop(0)
        sum_dims, a_only, b_only = [], [], []
        for dim in range(output_ndim, a.ndim):
            in_a, in_b = a.shape[dim] != 1, b.shape[dim] != 1
            if in_a and in_b:
                counts[dim] -= 1
                if counts[dim] == 1:
                    sum_dims.append(dim)
                    counts[dim] = 0
            elif counts[dim] == 1 and in_a:
                a_only.append(dim)
                counts[dim] = 0
            elif counts[dim] == 1 and in_b:
                b_only.append(dim)
                counts[dim] = 0
        if a_only:
            a = a.sum(a_only, keepdim=True)
        if b_only:
            b = b.sum(b_only, keepdim=True)
        operands.insert(0, _sum_product(a, b, sum_dims))
    return operands[0]


def _sum_product(left, right, sum_dims):
    """``(left * right).sum(sum_dims, keepdim=True)`` with one bmm (PyTorch's sumproduct_pair).

    The other dimensions are grouped by where they are: in both operands (the batch of the
    bmm), only in left (its rows), only in right (its columns). Each operand is permuted and
    reshaped to (batch, rows, summed) and (batch, summed, columns); the bmm's result is viewed
    and permuted back to the operands' order.
    """
    if not sum_dims:
        return left * right
    both, left_only, right_only = [], [], []
    summed_size = 1
    for dim in range(left.ndim):
        in_left, in_right = left.shape[dim] != 1, right.shape[dim] != 1
        if dim in sum_dims:
            if in_left and in_right:
                summed_size *= left.shape[dim]
            elif in_left:           # in one operand only: summed before the product
                left = left.sum(dim, True)
            elif in_right:
                right = right.sum(dim, True)
        elif in_left and in_right:
            both.append(dim)
        elif in_left:
            left_only.append(dim)
        else:
            right_only.append(dim)
    if left_only and right_only and right_only[-1] < left_only[0]:
        # swapped, the bmm writes its result in the output's order already
        left, right, left_only, right_only = right, left, right_only, left_only
    batch, rows, columns = ([left.shape[d] for d in both], [left.shape[d] for d in left_only],
                            [right.shape[d] for d in right_only])
    left = left.permute(both + left_only + sum_dims + right_only).reshape(
        int(np.prod(batch)), int(np.prod(rows)), summed_size)
    right = right.permute(both + sum_dims + right_only + left_only).reshape(
        int(np.prod(batch)), summed_size, int(np.prod(columns)))
    result = left.bmm(right).view(batch + rows + [1] * len(sum_dims) + columns)
    back = np.argsort(both + left_only + sum_dims + right_only).tolist()    # the inverse order
    return result.permute(back)
