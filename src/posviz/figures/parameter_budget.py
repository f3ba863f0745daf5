"""Figure 96 — Where the parameters go."""

from importlib import resources

import holoviews as hv
import panel as pn
import param
import yaml

from posviz.figures.base import INK, PALETTE, QUIET, Figure, Slider
from posviz.frames import parameter_budget as frames
from posviz.frames.parameter_budget import PAD, SIZES
from posviz.maths import budget

CUSTOM = "custom"


def load_presets() -> dict[str, dict[str, int]]:
    """Model sizes named in the paper, from ``posviz/data/model_presets.yaml``."""
    text = resources.files("posviz").joinpath("data/model_presets.yaml").read_text("utf-8")
    return yaml.safe_load(text)


PRESETS = load_presets()
ROLE_COLOURS = dict(
    zip(
        budget.ROLES,
        (PALETTE[5], PALETTE[0], PALETTE[1], PALETTE[0], PALETTE[4], PALETTE[1], PALETTE[2]),
        strict=True,
    )
)


class ParameterBudget(Figure):
    """The original Transformer's parameters counted by role, for its presets or any size."""

    figure_id = 96

    island_height = (426, 739)  # drawn: wide, narrow (the least over widths)
    watched_plot, stepped_slider = "bars", "d_model"  # what the benchmarks step
    title = "Where the parameters go"
    caption = (
        "Start by switching between *base* and *big*: the layer bars grow about fourfold and "
        "the embedding only doubles, since layers scale with d_model² and the embedding with "
        "d_model. Each bar is one role's parameters in millions, biases included. In an "
        "encoder layer the feed-forward block holds two thirds of the weights when d_ff = "
        "4·d_model, and the one embedding shared by encoder, decoder and output holds 30 % of"
        " the base model. Heads get no slider: cutting d_model into h heads reshapes the "
        "projection matrices without changing their size. The paper's Table 3 gives 65 M and "
        "213 M without a breakdown; this count gives 63.1 M and 214.2 M."
    )
    widgets = {"preset": pn.widgets.RadioButtonGroup}

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

    frame_of = staticmethod(frames.frame)
    implied = ("preset",)  # the sizes name it

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
        return frames.counts(self.sizes())

    def total(self) -> int:
        """Parameters of the whole model."""
        return sum(self.counts().values())

    def rows(self) -> list[tuple[str, float, str]]:
        """(role, millions, colour) per bar; reversed: Bokeh draws the first at the bottom."""
        return [
            (role, count / 1e6, ROLE_COLOURS[role])
            for role, count in reversed(self.counts().items())
        ]

    def plot_title(self) -> str:
        """The plot's title at the current sizes."""
        return frames.plot_title(self.sizes())

    @staticmethod
    def label(value: float) -> str:
        """A bar's label: its millions."""
        return frames.label(value)

    @param.depends()
    def bars(self):
        """One bar per role, in millions, labelled with its count.

        Drawn once: the roles never change, so a step sends only the new
        lengths, labels, title and value range (``posviz.frames.parameter_budget``).
        """
        rows = self.rows()
        bars = hv.Bars(rows, kdims="role", vdims=["millions", "colour"])
        labels = hv.Labels(
            [(role, value, self.label(value)) for role, value, _ in rows],
            kdims=["role", "millions"],
            vdims="text",
        )
        return (bars * labels).opts(
            hv.opts.Overlay(toolbar=None),
            hv.opts.Bars(
                color="colour",
                invert_axes=True,
                width=520,
                height=300,
                xlabel="",
                ylabel="parameters (millions)",
                line_color=None,
                title=self.plot_title(),
                show_grid=True,
                tools=["hover"],
                hooks=[self.names_plot("bars"), self.names_data("lengths")],
                framewise=True,
                padding=(0, (0, PAD)),
                **QUIET,
            ),
            hv.opts.Labels(
                text_align="left",
                text_font_size="9pt",
                text_color=INK,
                hooks=[self.names_data("labels")],
                **QUIET,
            ),
        )

    def plots(self):
        """The bars."""
        return [hv.DynamicMap(self.bars)]
