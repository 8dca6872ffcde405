"""Which of several equal values PyTorch's CPU kernels report.

``mode``, ``kthvalue``, ``topk`` and ``multinomial`` pick one element among equal ones, and
which one depends on the steps of the algorithm that found it, not on any rule. To give the
same indices as PyTorch, these are those algorithms, step by step, on a list ``items`` of
positions compared with ``less(a, b)``: PyTorch's quickselect, and the ``std::sort``,
``std::nth_element`` and ``std::partial_sort`` of libstdc++ (GCC's C++ library, which
PyTorch uses on Linux). Nothing else in teachgrad needs them: read the ops, not this file.
"""
import math

def quick_select(values, k):
    """PyTorch's quick_select_template (Sedgewick's partitioning; NaN is the largest):
    rearranges ``values`` until position ``k`` holds the k-th smallest, and returns the
    original position of the value that ends there."""
    positions = list(range(len(values)))

    def greater(a, b):
        return (math.isnan(a) and not math.isnan(b)) or a > b

    def swap(i, j):
        values[i], values[j] = values[j], values[i]
        positions[i], positions[j] = positions[j], positions[i]

    left, right = 0, len(values) - 1
    while right > left + 1:
        middle = (left + right) // 2                # the median of three becomes the pivot
        swap(middle, left + 1)
        if greater(values[left + 1], values[right]):
            swap(left + 1, right)
        if greater(values[left], values[right]):
            swap(left, right)
        if greater(values[left + 1], values[left]):
            swap(left + 1, left)
        i, j, pivot = left + 1, right, values[left]
        while True:
            i += 1
            while greater(pivot, values[i]):
                i += 1
            j -= 1
            while greater(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(left, j)
        if j <= k:
            left = i
        if j >= k:
            right = j - 1
    if right == left + 1 and greater(values[left], values[right]):
        swap(left, right)
    return positions[k]


_INSERTION_SORT_SIZE = 16      # libstdc++ sorts runs this short by insertion


def sort(items, first, last, less):
    """std::sort of items[first:last]: introsort (quicksort, heapsort when it recurses too
    deep), then one insertion sort over everything."""
    if last - first > 1:
        _introsort(items, first, last, 2 * ((last - first).bit_length() - 1), less)
        if last - first > _INSERTION_SORT_SIZE:
            _insertion_sort(items, first, first + _INSERTION_SORT_SIZE, less)
            for i in range(first + _INSERTION_SORT_SIZE, last):
                _shift_left_into_place(items, i, less)
        else:
            _insertion_sort(items, first, last, less)


def _introsort(items, first, last, depth_limit, less):
    while last - first > _INSERTION_SORT_SIZE:
        if depth_limit == 0:
            _heap_select(items, first, last, last, less)
            _sort_heap(items, first, last, less)
            return
        depth_limit -= 1
        cut = _partition_around_median_of_three(items, first, last, less)
        _introsort(items, cut, last, depth_limit, less)
        last = cut


def nth_element(items, nth, less):
    """std::nth_element: introselect, then an insertion sort of the last short range."""
    first, last = 0, len(items)
    if nth == last:
        return
    depth_limit = 2 * (last.bit_length() - 1)
    while last - first > 3:
        if depth_limit == 0:
            _heap_select(items, first, nth + 1, last, less)
            items[first], items[nth] = items[nth], items[first]
            return
        depth_limit -= 1
        cut = _partition_around_median_of_three(items, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(items, first, last, less)


def _partition_around_median_of_three(items, first, last, less):
    """Move the median of items[first + 1], the middle one and the last one to ``first``,
    partition the rest around it (swapping from both ends), return where the right part
    starts."""
    a, b, c = first + 1, first + (last - first) // 2, last - 1
    if less(items[a], items[b]):
        median = b if less(items[b], items[c]) else c if less(items[a], items[c]) else a
    else:
        median = a if less(items[a], items[c]) else c if less(items[b], items[c]) else b
    items[first], items[median] = items[median], items[first]
    left, right, pivot = first + 1, last, items[first]
    while True:     # (the bounds checks only matter for NaN, which breaks C++'s guarantees)
        while left < last and less(items[left], pivot):
            left += 1
        right -= 1
        while right > first and less(pivot, items[right]):
            right -= 1
        if not left < right:
            return left
        items[left], items[right] = items[right], items[left]
        left += 1


def _insertion_sort(items, first, last, less):
    for i in range(first + 1, last):
        if less(items[i], items[first]):
            items[first:i + 1] = [items[i]] + items[first:i]
        else:
            _shift_left_into_place(items, i, less)


def _shift_left_into_place(items, i, less):
    value = items[i]
    while i > 0 and less(value, items[i - 1]):
        items[i] = items[i - 1]
        i -= 1
    items[i] = value


def partial_sort(items, middle, less):
    """std::partial_sort: the ``middle`` smallest items, sorted, at the front (a heap)."""
    _heap_select(items, 0, middle, len(items), less)
    _sort_heap(items, 0, middle, less)


def _heap_select(items, first, middle, last, less):
    """Make items[first:middle] a max-heap, then let each later item smaller than the
    heap's top replace it."""
    size = middle - first
    for parent in range((size - 2) // 2, -1, -1):
        _sift_down(items, first, parent, size, items[first + parent], less)
    for i in range(middle, last):
        if less(items[i], items[first]):
            value, items[i] = items[i], items[first]
            _sift_down(items, first, 0, size, value, less)


def _sort_heap(items, first, last, less):
    while last - first > 1:
        last -= 1
        value, items[last] = items[last], items[first]
        _sift_down(items, first, 0, last - first, value, less)


def _sift_down(items, first, hole, size, value, less):
    """libstdc++'s __adjust_heap: move the hole at ``hole`` down to a leaf, always to the
    larger child, then sift ``value`` up from there."""
    top, child = hole, hole
    while child < (size - 1) // 2:
        child = 2 * (child + 1)
        if less(items[first + child], items[first + child - 1]):
            child -= 1
        items[first + hole] = items[first + child]
        hole = child
    if size % 2 == 0 and child == (size - 2) // 2:
        child = 2 * (child + 1)
        items[first + hole] = items[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(items[first + parent], value):
        items[first + hole] = items[first + parent]
        hole, parent = parent, (parent - 1) // 2
    items[first + hole] = value


def topk_positions(values, k, largest=True, sorted=True):
    """The positions of the ``k`` largest (or smallest) of ``values`` (a 1-D array), in the
    order PyTorch's CPU topk gives them (NaN counts as the largest): std::partial_sort when
    k is small against the length, else std::nth_element, then std::sort of the first k - 1
    unless ``sorted=False``."""
    if k == 0:
        return []
    values = values.tolist()
    positions = list(range(len(values)))
    before = _comes_first(values, largest)
    if k * 64 <= len(values):
        partial_sort(positions, k, before)
    else:
        nth_element(positions, k - 1, before)
        if sorted:
            sort(positions, 0, k - 1, before)
    return positions[:k]


def sort_positions(values, descending=False):
    """The positions of ``values`` (a 1-D array) in the order PyTorch's CPU sort (not the
    stable one) gives them: std::sort of (value, position) pairs, comparing values."""
    values = values.tolist()
    positions = list(range(len(values)))
    sort(positions, 0, len(positions), _comes_first(values, descending))
    return positions


def _comes_first(values, largest_first):
    """PyTorch's comparison of two positions: NaN counts as larger than any number."""
    def larger(i, j):
        a, b = values[i], values[j]
        return (math.isnan(a) and not math.isnan(b)) or a > b

    def smaller(i, j):
        a, b = values[i], values[j]
        return (not math.isnan(a) and math.isnan(b)) or a < b
    return larger if largest_first else smaller
