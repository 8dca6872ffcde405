# An LSTM language model in the style of pytorch/examples' word_language_model: embedding,
# a two-layer LSTM, a linear decoder, truncated back-propagation through time with the
# hidden state detached between batches, gradient clipping and the hand-written SGD step.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.2):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid, self.nlayers, self.ntoken = nhid, nlayers, ntoken
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(self.drop(output)).view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt=5):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].view(-1)


torch.manual_seed(1111)
corpus = torch.randint(0, 20, (130,))
train_data = batchify(corpus, 4)
print("batched:", tuple(train_data.shape))
model = RNNModel(ntoken=20, ninp=8, nhid=12, nlayers=2)
print(model)
criterion = nn.NLLLoss()
lr, clip = 5.0, 0.25
model.train()
hidden = model.init_hidden(4)
for batch, i in enumerate(range(0, train_data.size(0) - 1, 5)):
    data, targets = get_batch(train_data, i)
    model.zero_grad()
    hidden = repackage_hidden(hidden)
    model.rnn.flatten_parameters()
    output, hidden = model(data, hidden)
    loss = criterion(output, targets)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-lr)
    print(f"batch {batch}: loss {loss.item():.3f}, ppl {math.exp(loss.item()):.2f}, "
          f"hidden leaf: {hidden[0].is_leaf}")
print("output node:", output.grad_fn.name(), "| hidden node:", hidden[0].grad_fn.name())
model.eval()
with torch.no_grad():
    output, _ = model(train_data[:3], model.init_hidden(4))
    print("eval argmax:", output.argmax(1).tolist())
