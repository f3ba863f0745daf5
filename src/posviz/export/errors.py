"""What a build says: the error it reports in one line, and its steps as they are shown."""

from posviz.export import progress


class BuildError(RuntimeError):
    """The site could not be built; the message says what and where."""


# The build's steps as they are shown (export/progress.py): a moving line on a terminal.
STEPS = progress.Steps("posviz build")


def log(message: str) -> None:
    """The next step of the build."""
    STEPS.step(message)


def note(message: str) -> None:
    """A line that stays: a warning, or what a step found."""
    STEPS.say(message)
