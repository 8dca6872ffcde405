# The same model trained with an optimizer, then with a learning-rate schedule.
import torch

torch.manual_seed(4)
x = torch.randn(64, 10)
y = (x[:, :3].sum(1, keepdim=True) > 0).float()

model = torch.nn.Sequential(torch.nn.Linear(10, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
loss_fn = torch.nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=50, gamma=0.5)

for epoch in range(150):
    optimizer.zero_grad()
    logits = model(x)
    loss = loss_fn(logits, y)
    loss.backward()
    optimizer.step()
    scheduler.step()
    if epoch % 30 == 29:
        accuracy = ((logits > 0).float() == y).float().mean().item()
        print(epoch, f"loss {loss.item():.3f}", f"accuracy {accuracy:.2f}",
              f"lr {scheduler.get_last_lr()[0]:.4f}")

sgd = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for _ in range(20):
    sgd.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    sgd.step()
print("after SGD:", f"{loss.item():.3f}")
print("state keys:", sorted(sgd.state_dict()["state"][0].keys()))
