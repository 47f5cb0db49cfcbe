"""The error every layer raises for the user: one line, exit status 1, no traceback.

It sits below the layers so that the data, training and evaluation code can refuse
bad input in words the commands print as they are (`nextword.cli` catches it).
"""


class CommandError(Exception):
    """A user-facing failure: printed as one line, exit status 1, no traceback."""
