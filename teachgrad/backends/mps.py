"""Apple's Metal back-end: not available (teachgrad runs on the CPU)."""


def is_available():
    return False


def is_built():
    return False
