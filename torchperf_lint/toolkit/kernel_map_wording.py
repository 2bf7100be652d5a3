"""Wording the pages of the kernel-map rules (TPL005, TPL007, TPL008, TPL102) share, so all four say
the same about how a function gets into the map and how to correct it."""

PREVALIDATED = (
    "A function is caller-prevalidated when the kernel map says so, with no configuration needed: "
    'its docstring says its inputs arrive validated ("Sample one prevalidated volume", '
    '"Callers validate the container, layout and dtype", "validated by the caller", an `Args:` '
    'entry "volume: Prevalidated ..."), or it is a private module-level function that every call in '
    "the project reaches from a prevalidated function, or right after the caller checked what it "
    "passes, unless it is a validator itself (a name such as `_check_extent`, starting with `check`, "
    "`validate`, `ensure` or `assert`), whose checks are the validation its callers ask for. "
    "`# torchperf: prevalidated` on the `def` line and the `prevalidated` setting declare one. "
    "`torchperf-lint map` lists every entry with its reason."
)
PRIMITIVES = (
    "Primitives are caller-prevalidated functions, functions the `primitives` setting names, and "
    "functions that take a tensor, return a tensor or an array and reach a heavy torch call "
    "(sampling, convolution, interpolation, padding, matrix products), directly or through "
    "project calls. `torchperf-lint map` lists every entry with its reason."
)
OPTIONS = (
    "- `prevalidated`: globs of qualified function names (`pkg.module.Class.method`) declared "
    "caller-prevalidated, besides `# torchperf: prevalidated` on the `def` line.\n"
    "- `primitives`: globs of qualified names of further primitives.\n"
    "- `not-prevalidated`, `not-primitives`: globs of functions the map must not infer as such.\n"
    "- `infer-kernel-map`: `false` keeps only declared functions (the pragma and the two settings above)."
)
