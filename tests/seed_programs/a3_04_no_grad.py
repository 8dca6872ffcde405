# a3_04: torch.no_grad() stops tracking: z.requires_grad True, then False.
# (Article lines glued together: "print(z.requires_grad)with torch.no_grad():z = ...")
# needs: random
import torch

torch.manual_seed(0)
x = torch.ones(5)
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)

z = torch.matmul(x, w) + b
print(z.requires_grad)
# True

with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)
# False
print(z)

# the same result with detach()
z = torch.matmul(x, w) + b
z_det = z.detach()
print(z_det.requires_grad)
# False
