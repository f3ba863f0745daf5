"""Parameter count of the original post-LN encoder-decoder Transformer.

Counted from the definitions in Vaswani et al. (2017): every attention block
has four d×d projections (queries, keys, values, output). The paper writes
them as plain matrices (§3.2.2); like PyTorch's ``nn.Transformer`` and fairseq
(the authors' tensor2tensor has none), this count gives each a bias as well. Every feed-forward
block has two linear layers with biases; a LayerNorm (gain and bias) follows every
sub-layer; one vocab×d embedding is shared by the encoder input, the decoder
input and the pre-softmax projection and counted once; sinusoidal positions
have no parameters. With d_k = d_model / h the count does not depend on h.
"""

ROLES = (
    "embedding",
    "encoder self-attention",
    "encoder feed-forward",
    "decoder self-attention",
    "decoder cross-attention",
    "decoder feed-forward",
    "layer norm",
)

ENCODER_SUBLAYERS = 2  # self-attention, feed-forward
DECODER_SUBLAYERS = 3  # self-attention, cross-attention, feed-forward


def attention_block(d_model: int) -> int:
    """Four d×d projections, each with a bias of d."""
    return 4 * (d_model * d_model + d_model)


def feed_forward_block(d_model: int, d_ff: int) -> int:
    """Linear d→d_ff and d_ff→d, each with its bias."""
    return (d_model * d_ff + d_ff) + (d_ff * d_model + d_model)


def layer_norm(d_model: int) -> int:
    """A gain and a bias per feature."""
    return 2 * d_model


def parameter_counts(d_model: int, d_ff: int, n_layers: int, vocab_size: int) -> dict[str, int]:
    """Parameters of the whole model by role (keys: ``ROLES``, in that order)."""
    attention = attention_block(d_model)
    feed_forward = feed_forward_block(d_model, d_ff)
    norms_per_stack_layer = ENCODER_SUBLAYERS + DECODER_SUBLAYERS
    counts = {
        "embedding": vocab_size * d_model,
        "encoder self-attention": n_layers * attention,
        "encoder feed-forward": n_layers * feed_forward,
        "decoder self-attention": n_layers * attention,
        "decoder cross-attention": n_layers * attention,
        "decoder feed-forward": n_layers * feed_forward,
        "layer norm": n_layers * norms_per_stack_layer * layer_norm(d_model),
    }
    return {role: int(counts[role]) for role in ROLES}


def encoder_layer_share(d_model: int, d_ff: int) -> dict[str, float]:
    """Fraction of one encoder layer held by attention, feed-forward and norms."""
    parts = {
        "self-attention": attention_block(d_model),
        "feed-forward": feed_forward_block(d_model, d_ff),
        "layer norm": ENCODER_SUBLAYERS * layer_norm(d_model),
    }
    whole = sum(parts.values())
    return {name: count / whole for name, count in parts.items()}
