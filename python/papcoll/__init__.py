"""papcoll's Python side: reports and plots from the tools' CSV files.

    papcoll.report   the `papc-report` command (one subcommand per tool:
                     `guide` for papc-guide's CSV, ...)

Later this package may also hold a Python binding of the library.
"""

__version__ = "0.1.0"
