"""Figure 96 — Where the parameters go.

The original post-LN encoder-decoder Transformer (Vaswani et al., 2017),
counted from its definitions: every attention block has four d×d projections
(queries, keys, values, output). The paper writes them as plain matrices
(§3.2.2); like PyTorch's ``nn.Transformer`` and fairseq (the authors'
tensor2tensor has none), this count gives each a bias as well. Every
feed-forward block has two linear layers with biases; a LayerNorm (gain and
bias) follows every sub-layer; one vocab×d embedding is shared by the encoder
input, the decoder input and the pre-softmax projection and counted once;
sinusoidal positions have no parameters. With d_k = d_model / h the count
does not depend on h.
"""

import json
from importlib import resources

import numpy as np
import param

from posviz.figures.model import INK, PALETTE, Figure, Plot, Slider

ROLES = (
    "embedding",
    "encoder self-attention",
    "encoder feed-forward",
    "decoder self-attention",
    "decoder cross-attention",
    "decoder feed-forward",
    "layer norm",
)
# The embedding's grey is a shade darker than the palette's: white on it reads at 4.9:1
# (WCAG AA), where the palette's grey gave 4.3.
EMBEDDING_GREY = "#707070"
COLOURS = (EMBEDDING_GREY, PALETTE[0], PALETTE[1], PALETTE[0], PALETTE[4], PALETTE[1], PALETTE[2])
ENCODER_SUBLAYERS = 2  # self-attention, feed-forward
DECODER_SUBLAYERS = 3  # self-attention, cross-attention, feed-forward
SIZES = ("d_model", "d_ff", "n_layers", "vocab_size")
# Room past the longest bar, as a share of it: its label is drawn inside it.
PAD = 0.03
# A bar at least this share of the axis holds its label inside its end; a shorter one has it
# just past its end. A label of seven characters ("403.0 M") takes about 52 px, so either
# way it fits a plot area of 104 px or more: from a 390 px page up, in every state (a fixed
# room past the longest bar cut labels below 500 px). At 320 px the area is about 96 px.
INSIDE = 0.5
CUSTOM = "custom"
# Model sizes named in the paper (posviz/data/model_presets.json says where each comes from).
PRESETS = json.loads(
    resources.files("posviz").joinpath("data/model_presets.json").read_text("utf-8")
)["presets"]


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
    attention, feed_forward = attention_block(d_model), feed_forward_block(d_model, d_ff)
    counts = {
        "embedding": vocab_size * d_model,
        "encoder self-attention": n_layers * attention,
        "encoder feed-forward": n_layers * feed_forward,
        "decoder self-attention": n_layers * attention,
        "decoder cross-attention": n_layers * attention,
        "decoder feed-forward": n_layers * feed_forward,
        "layer norm": n_layers * (ENCODER_SUBLAYERS + DECODER_SUBLAYERS) * layer_norm(d_model),
    }
    return {role: int(counts[role]) for role in ROLES}


def encoder_layer_share(d_model: int, d_ff: int) -> dict[str, float]:
    """Fraction of one encoder layer held by attention, feed-forward and norms."""
    parts = {
        "self-attention": attention_block(d_model),
        "feed-forward": feed_forward_block(d_model, d_ff),
        "layer norm": ENCODER_SUBLAYERS * layer_norm(d_model),
    }
    return {name: count / sum(parts.values()) for name, count in parts.items()}


def label(value: float) -> str:
    """A bar's label: its millions."""
    return f"{value:.2f} M" if value < 1 else f"{value:.1f} M"


def luminance(colour: str) -> float:
    """WCAG's relative luminance of a ``#rrggbb`` colour."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    """WCAG's contrast ratio of two colours."""
    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def ink_on(colour: str) -> str:
    """White or the ink, whichever reads better on a bar of ``colour`` (in either theme)."""
    return max(("#ffffff", INK), key=lambda ink: contrast(ink, colour))


class ParameterBudget(Figure):
    """The original Transformer's parameters counted by role, for its presets or any size."""

    figure_id = 96
    title = "Where the parameters go"
    caption = (
        "Start by switching between *base* and *big*: the attention and feed-forward bars grow "
        "about fourfold, while the embedding and the layer-norm bars only double, since the "
        "first scale with d_model² and the others with d_model. Each bar is one role's "
        "parameters in millions, biases included. In an "
        "encoder layer the feed-forward block holds two thirds of the weights when d_ff = "
        "4·d_model, and the one embedding shared by encoder, decoder and output holds 30 % of"
        " the base model. Heads get no slider: cutting d_model into h heads reshapes the "
        "projection matrices without changing their size. The paper's Table 3 gives 65 M and "
        "213 M without a breakdown; this count gives 63.1 M and 214.2 M."
    )
    numbers = {"4": "formula, not a quantity: d_ff = 4·d_model"}
    widgets = {"preset": "buttons"}
    implied = ("preset",)  # the sizes name it

    preset = param.Selector(
        default="base",
        objects=[*PRESETS, CUSTOM],
        doc="Model sizes of the paper; moving a slider makes it custom.",
    )
    d_model = Slider(
        default=512, bounds=(64, 2048), step=64, label="d_model", doc="Width of the model, d_model."
    )
    d_ff = Slider(
        default=2048,
        bounds=(256, 8192),
        step=256,
        label="d_ff",
        doc="Inner width of the feed-forward block.",
    )
    n_layers = Slider(
        default=6,
        bounds=(1, 24),
        label="N (layers per stack)",
        doc="Layers N in the encoder and in the decoder.",
    )
    vocab_size = Slider(
        default=37000,
        bounds=(1000, 100000),
        step=1000,
        label="vocabulary",
        doc="Tokens in the shared vocabulary.",
    )

    def __init__(self, **params):
        # Explicit sizes win over the preset's (a notebook asking for d_model=1024 gets
        # it); sizes not given come from the preset named, else from the defaults. The
        # preset is then the one those sizes match, or custom.
        preset = params.pop("preset", None)
        if preset is not None:
            self.param.preset._validate(preset)
        sizes = {**PRESETS.get(preset, {}), **{n: params.pop(n) for n in SIZES if n in params}}
        super().__init__(**sizes, **params)
        self.preset = self.matching_preset()

    def sizes(self) -> dict[str, int]:
        """The model sizes the sliders hold, by name."""
        return {name: getattr(self, name) for name in SIZES}

    def matching_preset(self) -> str:
        """The name of the preset these sizes are, or ``custom``."""
        return next((name for name, sizes in PRESETS.items() if sizes == self.sizes()), CUSTOM)

    @param.depends("preset", watch=True)
    def _apply_preset(self):
        if self.preset in PRESETS:
            self.param.update(**PRESETS[self.preset])
        else:
            # "custom" names no sizes: it stays only while the sizes match no preset.
            self.preset = self.matching_preset()

    @param.depends(*SIZES, watch=True)
    def _mark_custom(self):
        self.preset = self.matching_preset()

    def counts(self) -> dict[str, int]:
        """Parameters of each role at the current sizes."""
        return parameter_counts(*self.sizes().values())

    def frame(self):
        """The bars' lengths in millions, their labels, the title and the value range."""
        lengths = np.array(
            [count / 1e6 for count in reversed(self.counts().values())]
        )  # Bokeh: first at the bottom
        end = float(lengths.max() * (1 + PAD))
        # A label sits at its bar's end; on a plot with a category axis its position is text.
        # Each bar's label is in one of the two elements, and "" in the other.
        at = [f"{v:.5g}" for v in lengths]
        inside, past = [], []
        for value in lengths:
            held = value >= INSIDE * end
            inside.append(f"{label(value)} " if held else "")
            past.append("" if held else f" {label(value)}")
        return {
            "lengths": {"data": {"millions": lengths}},
            "labels": {"data": {"millions": at, "text": past}},
            "inside": {"data": {"millions": at, "text": inside}},
            "bars": {
                "title.text": f"Total {sum(self.counts().values()) / 1e6:.1f} M parameters",
                "x_range.start": 0,
                "x_range.end": end,
            },
        }

    def draw(self, hv, frame):
        """One bar per role, in millions, labelled with its count."""
        roles, lengths = ROLES[::-1], frame["lengths"]["data"]["millions"]
        bars = hv.Bars(
            (roles, lengths, COLOURS[::-1]), kdims="role", vdims=["millions", "colour"]
        ).opts(color="colour", line_color=None, tools=["hover"])
        past = hv.Labels(
            (roles, lengths, frame["labels"]["data"]["text"]),
            kdims=["role", "millions"],
            vdims="text",
        ).opts(text_align="left", text_font_size="9pt", text_color=INK)
        # Inside a bar, white or ink by the bar's colour: a column, so the dark theme keeps it.
        inside = hv.Labels(
            (roles, lengths, frame["inside"]["data"]["text"], [ink_on(c) for c in COLOURS[::-1]]),
            kdims=["role", "millions"],
            vdims=["text", "ink"],
        ).opts(text_align="right", text_font_size="9pt", text_color="ink")
        return [
            Plot(
                "bars",
                {"lengths": bars, "labels": past, "inside": inside},
                invert_axes=True,
                width=520,
                height=300,
                xlabel="",
                ylabel="millions",
                show_grid=True,
            )
        ]

    def readout(self):
        """The sizes, the total and two shares worth noticing."""
        found = self.counts()
        total = sum(found.values())
        share = encoder_layer_share(self.d_model, self.d_ff)
        return (
            f"**{self.preset}** · d_model = {self.d_model}, d_ff = {self.d_ff}, "
            f"N = {self.n_layers}, vocab = {self.vocab_size:,} · total **{total / 1e6:.1f} M**  \n"
            f"feed-forward share of an encoder layer: **{share['feed-forward']:.1%}** · "
            f"embedding share of the model: **{found['embedding'] / total:.1%}**"
        )

    def describe(self):
        """The total and the largest role."""
        found = self.counts()
        largest = max(found, key=found.get)
        return (
            "Horizontal bars of parameters by role, "
            f"{sum(found.values()) / 1e6:.1f} million in all; "
            f"the largest is {largest} with {found[largest] / 1e6:.1f} million."
        )

    def table(self):
        """Parameters per role, in millions."""
        return (
            f"Parameters by role ({self.preset}), in millions",
            ["role", "millions"],
            [(role, f"{count / 1e6:.2f}") for role, count in self.counts().items()],
        )
