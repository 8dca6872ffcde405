"""teachgrad.autograd: the graph, the engine, grad mode and custom Functions."""
from teachgrad.autograd import anomaly, forward_ad, graph, profiler
from teachgrad.autograd.anomaly import detect_anomaly, set_detect_anomaly
from teachgrad.autograd.function import Function, FunctionCtx
from teachgrad.autograd.functional import backward, grad
from teachgrad.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from teachgrad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from teachgrad.autograd.variable import Variable

__all__ = ["Function", "FunctionCtx", "GradcheckError", "Variable", "anomaly", "backward",
           "detect_anomaly", "enable_grad", "forward_ad", "grad", "gradcheck", "gradgradcheck", "graph",
           "is_grad_enabled", "no_grad", "profiler", "set_detect_anomaly", "set_grad_enabled"]
