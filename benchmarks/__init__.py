"""teachgrad's benchmarks: ``python -m benchmarks`` (or ``make bench``).

One module per case of issue 7 -- ``mlp``, ``chain``, ``cnn``, ``memory``, ``notebooks`` --
``timing`` for the interleaved medians and the machine summary, and ``counts`` for what
``teachgrad.compile`` saves per step (issue 21: the compiled steps run beside the eager
ones). Ratios are what count: these machines are noisy, so nothing here asserts an
absolute time.
"""
