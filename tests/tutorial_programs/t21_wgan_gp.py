# WGAN-GP in the style of PyTorch-GAN's wgan_gp.py: a generator and a critic on 2-d points,
# the gradient penalty taken with autograd.grad(..., create_graph=True, only_inputs=True),
# and n_critic critic steps for each generator step.
import numpy as np
import torch
import torch.autograd as autograd
import torch.nn as nn

torch.manual_seed(0)
latent_dim, lambda_gp, n_critic = 4, 10, 3

generator = nn.Sequential(nn.Linear(latent_dim, 16), nn.LeakyReLU(0.2, inplace=True),
                          nn.Linear(16, 2))
critic = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2, inplace=True), nn.Linear(16, 1))
optimizer_G = torch.optim.Adam(generator.parameters(), lr=1e-3, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.999))


def compute_gradient_penalty(D, real_samples, fake_samples):
    """The penalty on the critic's gradient norm at points between real and fake."""
    alpha = torch.Tensor(np.random.random((real_samples.size(0), 1)))
    interpolates = (alpha * real_samples + ((1 - alpha) * fake_samples)).requires_grad_(True)
    d_interpolates = D(interpolates)
    fake = torch.ones(real_samples.shape[0], 1, requires_grad=False)
    gradients = autograd.grad(outputs=d_interpolates, inputs=interpolates, grad_outputs=fake,
                              create_graph=True, retain_graph=True, only_inputs=True)[0]
    gradients = gradients.view(gradients.size(0), -1)
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


np.random.seed(0)
for step in range(8):
    real = torch.randn(16, 2) * 0.5 + torch.tensor([2.0, -1.0])
    optimizer_D.zero_grad()
    z = torch.Tensor(np.random.normal(0, 1, (16, latent_dim)))
    fake = generator(z)
    penalty = compute_gradient_penalty(critic, real.data, fake.data)
    d_loss = -torch.mean(critic(real)) + torch.mean(critic(fake)) + lambda_gp * penalty
    d_loss.backward()
    optimizer_D.step()
    line = f"step {step}: critic loss {d_loss.item():+.4f}, penalty {penalty.item():.4f}"
    if step % n_critic == 0:
        optimizer_G.zero_grad()
        g_loss = -torch.mean(critic(generator(z)))
        g_loss.backward()
        optimizer_G.step()
        line += f", generator loss {g_loss.item():+.4f}"
    print(line)
print("penalty node:", penalty.grad_fn.name(), "| gradient node:",
      penalty.grad_fn.next_functions[0][0].name())
with torch.no_grad():
    print("fake mean:", [round(v, 3) for v in generator(torch.randn(256, latent_dim))
                         .mean(0).tolist()])
