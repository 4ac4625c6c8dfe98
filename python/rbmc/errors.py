"""rbmc's errors, one class per kind, as the command line gives each its own exit code."""


class Error(Exception):
    """The base of rbmc's errors (not of Interrupted, which is a KeyboardInterrupt)."""


class ScenarioError(Error, ValueError):
    """A scenario that does not parse or validate.

    ``file`` is the scenario's path (``"scenario dict"`` for a dict), ``line`` and ``column`` its
    place in a file (0 for a dict), ``key_path`` the key, e.g. ``"body.mass"`` or ``"loads[0].force"``.
    """

    def __init__(self, message, file="", line=0, column=0, key_path=""):
        super().__init__(message)
        self.file, self.line, self.column, self.key_path = file, line, column, key_path


class UsageError(Error, ValueError):
    """An argument that cannot be used (a bad selection, an existing output without overwrite, ...)."""


class OutputError(Error, OSError):
    """Writing or reading a results file failed (HDF5, the disk, another run holding the file)."""


class CudaError(Error, RuntimeError):
    """The CUDA runtime failed, or no GPU was found."""


class NotBuiltWithCuda(CudaError):
    """CUDA was asked for, and this build of rbmc has no CUDA backend."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) stopped a run. Its finished batches are kept: ``rbmc.run(..., resume=True)``
    with the same arguments completes it."""
