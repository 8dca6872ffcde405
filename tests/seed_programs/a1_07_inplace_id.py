# a1_07: a = a.exp() makes a new object, a[0] = 10 changes it in place.
# The article prints id(a); we print whether the id stayed the same.
import torch

# scene 1
a = torch.tensor([3.0, 1.0])
previous_id = id(a)
a = a.exp()
print(id(a) == previous_id)
# False: a.exp() created a new object
print(a)

# scene 2
a = torch.tensor([3.0, 1.0])
previous_id = id(a)
a[0] = 10
print(id(a) == previous_id, a)
# True tensor([10.,  1.])
print(a._version)
