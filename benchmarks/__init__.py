"""teachgrad's benchmarks: ``python -m benchmarks`` (or ``make bench``).

One module per case of issue 7 -- ``mlp``, ``chain``, ``cnn``, ``memory``, ``notebooks`` --
and ``timing`` for the interleaved medians and the machine summary. Ratios are what
count: these machines are noisy, so nothing here asserts an absolute time.
"""
