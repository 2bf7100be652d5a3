"""TPL003: routes that move work to CUDA, MPS or another non-CPU device."""

from __future__ import annotations

import re
from collections.abc import Sequence

import libcst as cst

from torchperf_lint.fixes import UNSAFE, NodeEdit, PendingFix
from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.bookkeeping import arms_only_reject, is_report, only_raises, only_rejects, only_reports
from torchperf_lint.toolkit.matching import (
    conjuncts,
    is_literal,
    is_non_cpu_device_string,
    is_reference,
    is_torch_name,
    keyword,
    method_name,
    positional,
    source_of,
    string_value,
    walk,
)
from torchperf_lint.toolkit.scopes import dotted
from torchperf_lint.toolkit.types import bound_value
from torchperf_lint.vocabulary import DEVICE_NAME

_DEVICE_MODULES = (
    "torch.cuda",
    "torch.backends.mps",
    "torch.backends.cuda",
    "torch.mps",
    "torch.xpu",
)
_DEVICE_METHODS = {"cuda", "xpu"}
_DEVICE_FLAGS = {"is_cuda", "is_mps", "is_xpu"}
_AUTOCAST = frozenset({"torch.autocast", "torch.amp.autocast", "torch.amp.autocast_mode.autocast"})
_DEVICE_KEYWORDS = ("device", "device_type", "use_device")
#: Members of the device modules that only manage or describe memory and hardware, or seed (or save and
#: restore) the device's random generators beside the CPU's: outside a condition (``if``, ``while``, a
#: conditional expression) they route no work, e.g. a GPU name in a report or ``torch.cuda.manual_seed_all(seed)``.
_INTROSPECTION = frozenset(
    """empty_cache ipc_collect memory_allocated max_memory_allocated memory_reserved max_memory_reserved
    memory_cached max_memory_cached reset_peak_memory_stats reset_max_memory_allocated reset_max_memory_cached
    reset_accumulated_memory_stats memory_stats memory_summary memory_snapshot mem_get_info
    get_device_name get_device_properties get_device_capability get_arch_list current_allocated_memory
    driver_allocated_memory recommended_max_memory
    manual_seed manual_seed_all seed seed_all initial_seed
    get_rng_state get_rng_state_all set_rng_state set_rng_state_all version""".split()
)
#: Members that describe the hardware itself: compared with a value, they decide what to build or run.
_HARDWARE_TRAITS = frozenset(
    {"get_device_capability", "get_device_properties", "get_device_name", "get_arch_list"}
)
#: Queries that start nothing: shown to a reader, they describe the machine. (``current_device()``
#: initialises CUDA, after which code that asks ``is_initialized()`` takes the device route.)
_SHOWN_QUERIES = frozenset({"device_count", "is_available", "is_initialized", "is_built"})
_MOVES, _NAMES, _TESTS, _SPLITS, _USES = (
    "moves work to a non-CPU device",
    "names a non-CPU device",
    "tests for a non-CPU device",
    "sends every other device down another branch",
    "uses a non-CPU device backend",
)
#: Text a call could take as a device or backend name, rather than prose for a reader.
_NAME_LIKE = re.compile(r"[\w.:/-]+")
#: Expressions a condition is built from; a device test anywhere inside one is reported once.
_CONDITION_PARTS = (
    cst.Name,  # the visited node itself, an imported query (``is_available() and is_built()``)
    cst.BooleanOperation,
    cst.UnaryOperation,
    cst.Comparison,
    cst.ComparisonTarget,
    cst.Call,
    cst.Attribute,
    cst.Subscript,
)


class DeviceRoute(Rule):
    code = "TPL003"
    name = "device-route"
    hint = "Keep the route on the CPU; delete the device branch or move it out of the kernel package."
    summary = "A route to CUDA, MPS or another non-CPU device"
    message = "`{what}` {effect}; routes are CPU-only by contract"
    why = (
        "The kernels are benchmarked and tested on the CPU only. A device branch is a route that "
        "no benchmark chose and no test runs, and moving tensors between devices copies them."
    )
    example = 'volume = volume.to("cuda")\nout = F.grid_sample(volume, grid)'
    use_instead = "out = F.grid_sample(volume, grid)  # the caller owns placement"
    notes = (
        'Flagged: `.cuda()`, `.xpu()`; a literal non-CPU device (`"cuda"`, `"mps:0"`, `f"cuda:{i}"`, a '
        "string built from a device name and an index, `'cuda:' + str(i)`, `'cuda:%d' % i`, "
        "`'cuda:{}'.format(i)`, or a call to a function of the project, here or in another module, every "
        "return of which is such a string, `device_for(rank)`; also as "
        "an arm of a conditional expression: `'cuda' if gpus else 'cpu'`; torch's device types and the names "
        'out-of-tree backends use, such as `"npu"`, `"tpu"`, `"neuron"` or `"musa"`, spelt as torch takes '
        'them, in lower case: `"CUDA"` is a label for people) given to `.to(...)`, '
        "`torch.device(...)`, `torch.autocast(...)` (also through `functools.partial`), a "
        "`device=`/`device_type=`/`use_device=` keyword (also as "
        'a `{"device": ...}` dict entry), as the default of a parameter named for a device, or bound to a '
        "name or attribute named for one (`device = 'cuda:0' if gpu else 'cpu'`, `self.device = 'mps'`, "
        "`self.accelerator_type = 'npu'`), or bound to another name and handed to `.to(...)` "
        "(`target = 'cuda:%d' % rank`, `x.to(target)`); "
        'comparisons with one (`x.device.type == "cuda"`, `!=`, `in ("cuda", "mps")`), also through a local '
        'holding a device type or a name or attribute that says it holds a device (`device == "cuda"`, '
        '`"cuda" in self.device`, `str(device) != "cpu"`); `!= "cpu"` tests (also `!= torch.device("cpu")`, '
        "alone or as one part of an "
        "`and` chain) whose branch "
        'does more than fall back to the CPU (raise, warn, or move values back with `.cpu()`, `.to("cpu")` or '
        '`.to(torch.device("cpu"))`), and `== "cpu"` tests whose `else` or `elif` does (an `elif` '
        "that names a device is reported itself), in `if` statements and conditional expressions alike; the "
        "`is_cuda`/`is_mps`/`is_xpu` flags; a device type tested by its prefix "
        "(`device.type.startswith('cuda')`); a device given as the default of a lookup "
        "(`options.pop('device_type', 'cuda')`); any use of `torch.cuda`, `torch.mps`, `torch.xpu` and "
        "`torch.backends.cuda`/`mps`. One condition gives one finding: `x.is_cuda or x.is_mps` and "
        "`a.is_cuda != b.is_cuda` are each reported once, and so is "
        "`'cuda' if torch.cuda.is_available() else 'cpu'` wherever it goes (bound to a name, in "
        "`torch.device(...)`, `device=`, `.to(...)` or a default): the finding is its test's, and a device "
        "named in an arm of a conditional expression whose test is reported is part of that finding "
        "(`torch.device('cuda') if torch.cuda.is_available() else torch.device('cpu')`), while a move or a "
        "backend call in an arm is work of its own (`x.cuda() if torch.cuda.is_available() else x` gives "
        "two). A module-level alias is the name it spells (`Device: TypeAlias "
        "= torch.device` then `Device('cuda')`). A hardware description compared with a value decides "
        "something and is reported wherever the comparison is (`all(torch.cuda.get_device_capability(i)[0] "
        ">= 8 for i in ...)`, `'A100' in torch.cuda.get_device_name()`). Where the "
        "line is: a finding says something "
        "true about a route, so a device mentioned without choosing or moving work is left alone: memory "
        "housekeeping and hardware "
        "descriptions (`torch.cuda.empty_cache()`, `memory_allocated()`, `get_device_name()` for a report), "
        "a query that starts nothing "
        "(`device_count()`, `is_available()`) read only to be shown, inside an f-string of prose, "
        "an argument of `print`, a logger or `warnings.warn`, or turned into text by `str()` or `repr()` "
        '(`print(f"{torch.cuda.device_count()} GPUs")`, `env["cuda"] = str(torch.cuda.is_available())`; '
        "`current_device()` initialises CUDA and is still flagged), and "
        "seeding the device's random generators or saving and restoring their state "
        "(`torch.cuda.manual_seed_all(seed)` beside `torch.manual_seed(seed)`, `torch.cuda.set_rng_state(s)`), "
        "except in the test of an `if`, `while` or conditional expression, "
        "where the value picks what runs; annotations; an error class wherever it is named "
        "(`except torch.cuda.OutOfMemoryError:`, `exc_type is torch.cuda.OutOfMemoryError`, "
        "`isinstance(e, OutOfMemoryError)`), which tells which failure happened and picks no device (what "
        "the handler does is judged on its own); a device class handed as such to a decorator "
        "(`@delegates(GradScaler)` borrows its signature once, when the function is defined); "
        "a test whose branch only raises, "
        "asserts, warns, logs or prints (a log before the raise, also under a test of its own, `if verbose: "
        "log.error(...)`, is part of the refusal; also through nested tests every arm of which only "
        "raises; one that "
        "only warns, logs or prints with an `else` that does work picks between the two and is flagged; one "
        "that only sets which warnings are shown, `warnings.simplefilter('ignore')`, counts as one that warns), "
        "an "
        "`assert` (it refuses a device: the route stays on the CPU), or one of the `if ...: return` guards "
        "that open a function which then only warns or raises (`if not torch.cuda.is_available(): return` "
        "before `warnings.warn(...)`: every way through it reports or does nothing); an `if` whose block, "
        "and `else` if any, only fills in a description of the machine, returning or storing prose, "
        "`None` or a hardware description (`if torch.cuda.is_available(): return torch.cuda.get_device_name(0)`; "
        "a `return` counts only when all that follows it in the function describes too, so `if "
        "q.device.type != 'cuda': return None` before a fused kernel is a route; "
        "`info[k] = 'No CUDA'`, the CUDA generator's state for a checkpoint else `None`, also as a "
        "conditional expression that is bound or returned, `s = torch.mps.get_rng_state() if "
        "torch.backends.mps.is_available() else None`; prose added to a "
        "message, `msg += f'GPU {i}: {torch.cuda.get_device_name(i)}'`, `msg = msg + ' (GPU)'`, "
        "`fmt.append('max mem: {mem:.0f}')`, also adjacent f-strings, `s = (f'{s} | ' f'CUDA: "
        "{torch.version.cuda}')`); a loop over the devices whose body only files each one's "
        "description (`for k in range(torch.cuda.device_count()): names[k] = torch.cuda.get_device_name(k)`); "
        "an `if` or `elif` whose block does what its `else` does, "
        "statement for statement (`elif mps.is_available(): return 'cpu'` then `else: return 'cpu'`); an "
        "`if` without "
        "`else` whose block only keeps house (`torch.xpu.empty_cache()`, or a memory statistic handed to a "
        "logger; also `gc.collect()`, names bound to memory figures, such figures filed into a dict of "
        "statistics, `stats.update({'gpu_mem': mem})` or `stats['gpu_mem'] = mem`, nested tests of them, and "
        "a bare "
        "`return` when all that follows in the function, outside any loop, keeps house too, also under "
        "tests of its own, `if device == 'mps': torch.mps.empty_cache()`), since both "
        "ways run the same work; an `if` whose arms only set `True`, `False` or `None` on names or attributes "
        "of `self` the file never reads (`self.CPU_ONLY = True` left behind); a device flag shown in a message "
        "(`f'{x.is_cuda=}'` in an error, a log line), and a library's version (`torch.cuda.nccl.version()`); "
        "a query bound to a name the file never reads (comments and strings are no reads) "
        "(`use_cuda = torch.cuda.is_available()` left behind) or the function reads only to show it "
        "(`f'cuda available: {cuda}'` in an environment report, also through text built from it and only "
        "shown, `gpus = ','.join(str(g) for g in range(count))` then `print(gpus)`); a query that is the "
        "default of a parameter the function reads only to decide whether the device's generators are "
        "seeded or their state kept (`def set_seed(seed, cuda=torch.cuda.is_available()): if cuda: "
        "torch.cuda.manual_seed_all(seed)`, `torch.cuda.get_rng_state_all() if cuda else None`, or handed "
        "to a function of the same file that does only that); and so is a device picked from a query "
        "that way (`device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')`, then only "
        "`print(f'Device: {device}')`); an arm "
        "that only reads which device it is (`'cpu' if device.type == 'cpu' else device.index`, a key); "
        "a conditional expression whose arms are both prose, such as a module's `extra_repr` returning "
        "`f' (GPU {i})' if p.is_cuda else ''` (arms that are bare words, `'nccl' if x.is_cuda else 'gloo'`, "
        "can name a backend and are still flagged). "
        "Exempt too: a `device` threaded through (`device=x.device`, `device=device`), `x.to(torch.float32)`, "
        '`.to(dtype=...)` and `"cpu"`, which keep work where the caller put it. Test files are not exempt: '
        "tests compare against other CPU backends (NumPy, SciPy, OpenCV), and a CUDA test is a device route "
        "the contract rules out. Methods, flags, keywords and comparisons are matched in files that import "
        "torch or a module of the same project that does."
    )
    fix = UNSAFE
    fix_safety = (
        "`.cuda()` and `.xpu()` are removed, leaving the receiver; `volume = volume.cuda()` "
        "is removed whole (or becomes `pass` when it is the only statement of its block) rather than "
        "left as `volume = volume`, and `volume: T = volume.cuda()` keeps only its annotation (in a "
        "function or module; in a class body only the call goes, so the class attribute stays). On a "
        "CPU tensor the values are the same, but the call returned a copy and the receiver is the "
        "caller's own object, so a later in-place write would now reach it: unsafe. Device literals, "
        "`torch.device` and `torch.cuda` checks have no fix: the right CPU route depends on what the "
        "branch does."
    )
    valid = (
        # housekeeping guarded by device tests after a return that skips the rest for other devices
        "import gc\nimport torch\ndef release(device):\n"
        "    if device != 'mps' and device != 'cuda' and not device.startswith('cuda:'):\n        return\n"
        "    gc.collect()\n    if device.startswith('cuda') and torch.cuda.is_available():\n"
        "        torch.cuda.empty_cache()\n    if device == 'mps':\n        torch.mps.empty_cache()\n",
        # a fall back to the CPU device object, after a warning
        "import logging\nimport torch\ndef run(x):\n    if x.device != torch.device('cpu'):\n"
        "        logging.warning('x should be on the CPU')\n        x = x.to(torch.device('cpu'))\n"
        "    return x.numpy()\n",
        # a device picked and left unread (its use only in a comment); flags set and never read
        "import torch\ndef setup(self):\n"
        "    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "    # self.model.to(device)\nclass F:\n    def build(self):\n        if not torch.cuda.is_available():\n"
        "            self.CPU_ONLY = True\n        else:\n            self.CPU_ONLY = False\n"
        "        if torch.backends.mps.is_available():\n            on_mps = True\n",
        # a version for a report, a device flag shown in a message
        "import torch\ndef info():\n    return {'nccl': '.'.join(map(str, torch.cuda.nccl.version()))}\n"
        "def check(tensor):\n    if not torch.is_tensor(tensor):\n"
        "        raise TypeError(f'expected a tensor ({tensor.is_cuda=})')\n"
        "    print(f'on the GPU: {tensor.is_cuda}')\n",
        # a flag defaulting to a query that only decides seeding or keeping the generators' state:
        # tested, as a conditional expression, handed to a function of the file that does so
        "import random\nimport torch\ndef get_state(cuda=torch.cuda.is_available()):\n"
        "    return random.getstate(), torch.cuda.get_rng_state_all() if cuda else None\n"
        "def set_seed(seed, cuda=torch.cuda.is_available()):\n    torch.manual_seed(seed)\n    if cuda:\n"
        "        torch.cuda.manual_seed_all(seed)\n"
        "def fork(seed=None, cuda=torch.cuda.is_available()):\n    state = get_state(cuda)\n"
        "    set_seed(seed, cuda=cuda)\n    return state\n",
        # memory figures filed into a dict of statistics: by update, by a keyword, by subscript
        "import torch\ndef memory_stats(process, device):\n    stats = {'rss': rss()}\n"
        "    if device.type != 'cpu':\n        mem = torch.cuda.memory_allocated(device) / 1e6\n"
        "        cache = torch.cuda.memory_reserved(device) / 1e6\n"
        "        stats.update({f'gpu_mem_{process}': mem, 'gpu_cache': cache})\n"
        "        stats.update(peak=torch.cuda.max_memory_allocated(device))\n"
        "        stats['total'] = mem + cache\n    return stats\n",
        # a query turned into text that is only shown: joined, in an f-string, through str
        "import torch\ndef main():\n    count = torch.cuda.device_count()\n"
        "    gpus = ','.join(str(g) for g in range(count))\n    print(gpus)\n"
        "def report(log):\n    n = torch.cuda.device_count()\n    line = f'{n} devices'\n    log.info(line)\n"
        "def show():\n    ok = torch.cuda.is_available()\n    text = str(ok)\n    print(text)\n",
        # prose spread over adjacent f-strings; a return of a description bound just before
        "import torch\ndef versions():\n    s = 'PyTorch'\n    if torch.cuda.is_available():\n"
        "        s = (\n            f'{s} | '\n            f'CUDA: {torch.version.cuda} | '\n        )\n"
        "    return s\n"
        "def gpu_name(i):\n    if not torch.cuda.is_available():\n        return 'No CUDA'\n"
        "    name = torch.cuda.get_device_name(i)\n    return name\n"
        "def gpu_name0():\n    if not torch.cuda.is_available():\n        return None\n"
        "    return torch.cuda.get_device_name(0)\n",
        # housekeeping behind figures it reads first, then a return before more housekeeping
        "import gc\nimport torch\ndef try_gc(device=None, threshold=0.8):\n"
        "    if device is not None and torch.cuda.is_available():\n"
        "        d = torch.device(device) if isinstance(device, str) else device\n        if d.type == 'cuda':\n"
        "            allocated = torch.cuda.memory_allocated(d)\n"
        "            total = torch.cuda.get_device_properties(d).total_memory\n"
        "            if total > 0 and allocated / total > threshold:\n                gc.collect()\n"
        "                torch.cuda.empty_cache()\n                return\n    gc.collect()\n",
        # a device test whose block only sets which warnings are shown
        "import torch\nimport warnings\ndef f(is_rnn, x):\n    if is_rnn and torch.cuda.is_available():\n"
        "        warnings.simplefilter('ignore')\n    return x * 2\n",
        # a loop over the devices that only files a description of each: keyed, stored, appended
        "import torch\nfrom collections import defaultdict\ndef env():\n    devices = defaultdict(list)\n"
        "    for k in range(torch.cuda.device_count()):\n"
        "        devices[torch.cuda.get_device_name(k)].append(str(k))\n    return devices\n",
        "from torch.cuda import device_count, get_device_name\ndef env(names):\n"
        "    for i in range(device_count()):\n        names[i] = get_device_name(i)\n",
        "import torch\ndef env(props):\n    for i in range(torch.cuda.device_count()):\n"
        "        props.append(torch.cuda.get_device_properties(i))\n",
        # a device picked from a query and only shown: bound and printed, logged, never read
        "import torch\ndef f():\n    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "    print(f'Device: {device}')\n",
        "import torch, logging\nlog = logging.getLogger(__name__)\ndef f():\n"
        "    device = 'cuda' if torch.cuda.is_available() else 'cpu'\n    log.info(f'running on {device}')\n",
        "import torch\ndef f(x):\n    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "    return x\n",
        # a device test whose branch tells someone and then raises: under a test of its own, directly,
        # through ``logger.exception``; a comparison with the CPU device that falls back to it
        "import torch, logging\nlog = logging.getLogger(__name__)\nclass D:\n"
        "    def __init__(self, device, verbose):\n        if 'cpu' not in device and 'cuda' not in device:\n"
        "            if verbose:\n"
        "                log.error('bad device %s', device)\n            raise ValueError(device)\n",
        "import torch, logging\nlog = logging.getLogger(__name__)\ndef f(x):\n    if x.is_cuda:\n"
        "        log.error('CPU only')\n        raise ValueError('CPU only')\n    return x\n",
        "import torch, logging\nlog = logging.getLogger(__name__)\ndef f(x):\n    if x.device.type == 'mps':\n"
        "        msg = 'no MPS'\n        log.exception(msg)\n        raise RuntimeError(msg)\n    return x\n",
        "import torch\ndef f(x, device):\n    if device != torch.device('cpu'):\n        x = x.cpu()\n"
        "    return x\n",
        # built strings that name no device: no index after the name, a CPU index, a placeholder first
        "import torch\ndef f(x, k, kind):\n    tag = 'cuda' + str(k)\n    y = x.to('cpu:' + str(k))\n"
        "    name = '%s:%d' % (kind, k)\n    target = 'cpu:{}'.format(k)\n    return tag, name, y, x.to(target)\n",
        # a query left unread, the generator's state or None, and a device's index as a key
        "import torch\nuse_cuda = torch.cuda.is_available()\n",
        "import torch\ndef state():\n    if torch.cuda.is_available():\n        s = torch.cuda.get_rng_state()\n"
        "    else:\n        s = None\n    return s\n",
        # the same as a conditional expression: bound, returned, through an alias and an imported query
        "import torch\ndef saved():\n"
        "    mps = torch.mps.get_rng_state() if torch.backends.mps.is_available() else None\n"
        "    return mps\ndef name() -> str:\n"
        "    return torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'No CUDA'\n",
        "import torch as th\nfrom torch.cuda import is_available\ndef saved():\n"
        "    state: object = th.cuda.get_rng_state() if is_available() else None\n    return state\n",
        "import torch\ndef index(data):\n    device = data.device\n"
        "    return 'cpu' if device.type == 'cpu' else device.index\n",
        "import torch\ndef env(cuda, mps):\n    accelerator = 'N/A'\n    if cuda:\n        accelerator = 'CUDA'\n"
        "    elif mps:\n        accelerator = 'MPS'\n    return {'Accelerator': accelerator}\n",
        "import torch\ndef f(accelerator, x):\n    if accelerator.is_main_process:\n        log(x)\n"
        "    accelerator_type = 'cpu'\n    return x.to(accelerator_type)\n",
        "import torch\nfrom torch.cuda.amp import GradScaler\n@delegates(GradScaler)\ndef f(model, **kw):\n"
        "    return model\n@delegates(torch.cuda.amp.GradScaler)\ndef g(model, **kw):\n    return model\n",
        "import torch\nfrom torch.cuda import OutOfMemoryError\ndef done(exc_type, error):\n"
        "    if exc_type is torch.cuda.OutOfMemoryError:\n        return True\n"
        "    oom = OutOfMemoryError\n    return issubclass(exc_type, oom) or isinstance(error, oom)\n",
        "from .helpers import *\ndef f(torch):\n    return torch.cuda.is_available()\n",
        "import torch\ny = x.to(torch.float32)\n",
        "import torch\nfrom torch.cuda import OutOfMemoryError\ndef run(f, x):\n    try:\n        return f(x)\n"
        "    except torch.cuda.OutOfMemoryError:\n        settle()\n        raise\n"
        "    except (ValueError, OutOfMemoryError) as error:\n        log(error)\n        raise\n",
        # nested tests every arm of which only raises: a check that refuses a device mix
        "import torch\ndef check(a, b):\n    if b.device.type == 'cuda':\n        if a.device.type == 'cuda':\n"
        "            if a.device.index != b.device.index:\n                raise TypeError('same GPU')\n"
        "        else:\n            raise TypeError('input must be on GPU')\n    return a * b\n",
        "import torch\ndef check(a):\n    if a.is_cuda:\n        if a.dtype == torch.half:\n"
        "            raise TypeError('half on GPU')\n    return a\n",
        # a device test that only picks between texts of a description
        "import torch\nclass Buffers(torch.nn.Module):\n    def extra_repr(self):\n        p = self.weight\n"
        "        return '' if not p.is_cuda else f' (GPU {p.get_device()})'\n",
        "import torch\ndef describe(x):\n    where = x.device.type\n"
        "    tag = ' on an accelerator' if where == 'cuda' else ''\n    return 'tensor' + tag\n",
        "import torch\ndef banner():\n"
        "    return 'CUDA is available' if torch.cuda.is_available() else 'running on the CPU only'\n",
        "import torch\ny = x.to(dtype=torch.uint8)\n",
        "import torch\ny = torch.zeros(3, device='cpu')\n",
        "import torch\ny = torch.empty_like(x, device=x.device)\n",
        "import torch\ny = x.to('cpu')\n",
        "def cuda():\n    pass\ncuda()\n",
        "import torch\nif x.device.type == 'cpu':\n    pass\nok = x.device.type in ('cpu', 'meta')\n",
        "import torch\nwith torch.autocast('cpu', dtype=torch.bfloat16):\n    pass\n",
        "import torch\ny = x.to(f'{device}')\nname = f'cuda is {state}'\n",
        "import torch\ndef report():\n    torch.cuda.empty_cache()\n"
        "    return {'gpu': torch.cuda.get_device_name(0)}\n",
        # device queries only shown to a reader: in prose, a logger's argument, a warning
        "import torch\ndef f():\n    print(f'{torch.cuda.device_count()} GPUs are available')\n",
        "import logging\nfrom torch.cuda import device_count\nlog = logging.getLogger(__name__)\n"
        "def f():\n    log.info('CUDA devices: ' + str(device_count()))\n",
        "import torch, warnings\ndef f(x):\n"
        "    warnings.warn('{} devices idle'.format(torch.cuda.device_count()))\n",
        "import torch\ndef f(x, fast):\n    if fast and x.device.type != 'cpu':\n        x = x.cpu()\n"
        "    return g(x)\n",
        "import torch\nfrom torch import cuda\ndef seed_everything(seed):\n    torch.manual_seed(seed)\n"
        "    torch.cuda.manual_seed_all(seed)\n    cuda.manual_seed(seed)\n",
        # saving and restoring the generators' state beside the CPU's
        "import torch\nclass RandContext:\n    def __enter__(self):\n        self.cpu = torch.get_rng_state()\n"
        "        self.gpu = torch.cuda.get_rng_state_all()\n    def __exit__(self, *exc):\n"
        "        torch.set_rng_state(self.cpu)\n        torch.cuda.set_rng_state_all(self.gpu)\n",
        "import torch\ndef restore(states):\n    torch.mps.set_rng_state(states['mps'])\n",
        "from torch.cuda import get_rng_state, set_rng_state\ndef swap(s):\n    old = get_rng_state()\n"
        "    set_rng_state(s)\n    return old\n",
        # a query turned into text, or an availability test that only fills in a description, for an
        # environment report
        "import torch\ndef gpu_name():\n    if torch.cuda.is_available():\n"
        "        return torch.cuda.get_device_name(None)\n    return None\n",
        "import torch\ndef fill(info, fields):\n    if not torch.cuda.is_available() and not info:\n"
        "        for field in fields:\n            info[field] = 'No CUDA'\n",
        "from torch.backends import mps\ndef row(env):\n    if mps.is_available():\n"
        "        env.mps = 'Metal is available'\n",
        # a test whose block does what the else does: imported queries in an elif, an attribute in an if
        "from torch.backends.mps import is_available, is_built\nimport torch\ndef device(name):\n"
        "    if name:\n        return name\n    elif is_available() and is_built():\n"
        "        # not all ops run on MPS yet\n        return 'cpu'\n    else:\n        return 'cpu'\n"
        "def pick(x):\n    if torch.backends.mps.is_available():\n        y = x * 2\n"
        "    else:\n        y = x * 2\n    return y\n",
        # prose added to a message: augmented, concatenated, appended to a list of format parts
        "import torch\ndef report(n, fmt):\n    msg = ''\n    for i in range(n):\n"
        "        if torch.cuda.is_available():\n"
        "            msg += f'GPU {i} Name: {torch.cuda.get_device_name(i)}'\n    if torch.cuda.is_available():\n"
        "        msg = msg + ' (GPU build)'\n    if torch.cuda.is_available():\n"
        "        fmt.append('max mem: {memory:.0f}')\n    return msg, fmt\n",
        "import torch\ndef env():\n    return {'cuda': str(torch.cuda.is_available())}\n",
        "import torch\ndef env(info):\n    info.gpus = repr(torch.cuda.device_count())\n",
        "from torch.cuda import is_available\nROW = ('CUDA available', str(is_available()))\n",
        "import torch\ndef f(x: 'torch.cuda.FloatTensor') -> torch.cuda.FloatTensor:\n    return x\n",
        "import torch\ndef f(x):\n    if not torch.cuda.is_available():\n"
        "        raise RuntimeError('needs CUDA')\n",
        "import torch, warnings\ndef f(x):\n    if x.is_cuda:\n        warnings.warn('CPU only: moving to CPU')\n"
        "    assert not x.is_mps, 'CPU only'\n",
        "import torch\ndef f(x):\n    if x.device.type != 'cpu':\n        msg = f'{x.device} is not the CPU'\n"
        "        raise ValueError(msg)\n",
        "import torch\ndef f(x):\n    kind = x.device.type\n    if kind != 'cpu':\n"
        "        x = x.cpu()\n    return x\n",
        "import torch\ndef f(x, device='cpu', dtype='float32'):\n    return x.to(device)\n",
        "import torch\ndef f(x):\n    device = 'cpu'\n    self_device = x.device\n    name = 'cuda'\n"
        "    return x.to(device), name\n",
        "import torch\ndef f(x):\n    if x.device.type == 'cpu':\n        x = x.contiguous()\n    return x\n",
        "import torch\ndef f(x):\n    y = x if x.device.type == 'cpu' else x.cpu()\n    return y\n",
        "import torch\nfrom functools import partial\nctx = partial(torch.autocast, 'cpu')\n"
        "def f(x, name):\n    if str(name) != 'cpu':\n        return g(x)\n    return x\n",
        "import torch\ndef f(x):\n    if x.device.type == 'cpu':\n        return plain(x)\n    else:\n"
        "        raise ValueError('CPU tensors only')\n",
        # an availability query read only into a report; a branch that only keeps house on the device
        "import torch\ndef env():\n    cuda = 'NA'\n    try:\n        cuda = torch.cuda.is_available()\n"
        "    except RuntimeError:\n        pass\n    print({'torch': f'{torch.__version__} (cuda: {cuda})'})\n",
        "import torch\nfrom torch.cuda import empty_cache\ndef f(blocks, m):\n    for b in blocks:\n"
        "        b(m)\n        if hasattr(torch, 'xpu') and torch.xpu.is_available():\n"
        "            torch.xpu.empty_cache()\n        if m.is_cuda:\n            empty_cache()\n",
        "import torch\ndef log(writer, step):\n    if torch.cuda.is_available():\n"
        "        writer.add_scalar('peak MB', torch.cuda.max_memory_allocated() / 1e6, step)\n",
        # the guard clauses of a function that only decides whether to warn or to raise
        'import torch, warnings\ndef _maybe_warn(config):\n    """A known driver bug."""\n'
        "    if not torch.cuda.is_available():\n        return\n    if config.fast:\n        return\n"
        "    warnings.warn('this CUDA release can crash')\n",
        "import torch\ndef _check(x):\n    if not torch.cuda.is_available():\n        return None\n"
        "    msg = f'{x.device} is not supported by this build'\n    raise RuntimeError(msg)\n",
        "from torch.cuda import is_available\nimport logging\ndef _note(log: logging.Logger):\n"
        "    if is_available():\n        return\n    log.info('running without a GPU')\n",
    )
    invalid = (
        Invalid(  # a flag the file reads later picks a route; a device string set on an object is handed on
            "import torch\nclass F:\n    def build(self):\n        if not torch.cuda.is_available():\n"
            "            self.CPU_ONLY = True\n        else:\n            self.CPU_ONLY = False\n"
            "    def run(self, x):\n        return x if self.CPU_ONLY else fused(x)\n"
            "def setup(env):\n    if torch.backends.mps.is_available():\n        env.fast = True\n",
            ((4, 16), (11, 8)),
        ),
        Invalid(  # a device named in an arm is the test's finding; a move or a backend call is its own
            "import torch\nclass C:\n    def __init__(self, flag, x):\n"
            "        self.device = torch.device('cuda') if torch.cuda.is_available() else torch.device('cpu')\n"
            "        self.d3 = torch.device('cuda') if flag else torch.device('cpu')\n"
            "        self.kw = dict(device='mps') if torch.backends.mps.is_available() else {}\n"
            "def f(x):\n    return x.cuda() if torch.cuda.is_available() else x\n"
            "def g(x):\n    return x.to('mps') if x.is_mps else x\n",
            ((4, 47), (5, 19), (6, 41), (8, 12), (8, 24), (10, 17), (10, 27)),
        ),
        Invalid(  # a module-level alias of torch.device or of a device module
            "import torch\nfrom typing import TypeAlias\nDevice: TypeAlias = torch.device\nDev = torch.device\n"
            "_cuda = torch.cuda\ndef f():\n    a = Device('cuda', index=0)\n    b = Dev('mps')\n"
            "    _cuda.synchronize()\n    return a, b\n",
            ((7, 9), (8, 9), (9, 5)),
        ),
        Invalid(  # a hardware description compared with a value: returned, bound, through a local
            "import torch\ndef bf16_ok(n):\n"
            "    return n > 0 and all(torch.cuda.get_device_capability(i)[0] >= 8 for i in range(n))\n"
            "def flash():\n    use_flash = 'A100' in torch.cuda.get_device_name()\n    return use_flash\n"
            "def arch():\n    major, minor = torch.cuda.get_device_capability()\n"
            "    return torch.cuda.get_device_properties(0).major >= major\n",
            ((3, 26), (5, 27), (9, 12)),
        ),
        Invalid(  # a return that skips a device's kernel; a flag default that picks a route
            "import torch\ndef decode(q, k):\n    if q.device.type != 'cuda' or q.dim() != 4:\n"
            "        return None\n"
            "    return fused(q, k)\ndef run(x, cuda=torch.cuda.is_available()):\n    if cuda:\n"
            "        x = x.cuda()\n    return x\n",
            ((3, 8), (6, 17), (8, 13)),
        ),
        Invalid(  # a return that skips the work after it, or the passes left of a loop
            "import gc\nimport torch\ndef work(model, x):\n    if torch.cuda.is_available():\n"
            "        torch.cuda.empty_cache()\n        return\n    return model(x)\n"
            "def loop(xs):\n    for x in xs:\n"
            "        if torch.cuda.is_available():\n            torch.cuda.empty_cache()\n            return\n"
            "        gc.collect()\n",
            ((4, 8), (10, 12)),
        ),
        Invalid(  # a conditional expression with a value that is no description, or handed to a call
            "import torch\ndef f(x):\n"
            "    s = torch.cuda.get_rng_state() if torch.cuda.is_available() else x.sum()\n"
            "    return s, use(torch.cuda.get_device_name(0) if torch.cuda.is_available() else None)\n",
            ((3, 39), (4, 52)),
        ),
        Invalid(  # a loop over the devices that places work on each
            "import torch\ndef f(model, outs):\n    for i in range(torch.cuda.device_count()):\n"
            "        outs.append(torch.cuda.get_device_name(i))\n        outs.append(model(i))\n",
            ((3, 20),),
        ),
        Invalid(  # an optional import whose failure leaves None or False behind: the module, the member
            "try:\n    import torch\n    from torch import cuda\nexcept ImportError:\n    torch = None\n"
            "    cuda = False\ndef f(x):\n    if torch.cuda.is_available():\n        x = x * 2\n"
            "    if cuda.is_available():\n        x = x * 3\n    return x\n",
            ((8, 8), (10, 8)),
        ),
        Invalid(  # a device picked from a query and then used, not only shown
            "import torch\ndef f(x):\n    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
            "    print(f'Device: {device}')\n    return x.to(device)\n",
            ((3, 37),),
        ),
        Invalid(  # a log before work, not before a raise; a comparison with the CPU device picking a route
            "import torch, logging\nlog = logging.getLogger(__name__)\ndef f(model, device):\n"
            "    if 'cuda' in device:\n        log.error('moving')\n        model = fuse(model)\n"
            "    if device is not None and device != torch.device('cpu'):\n        model = fuse(model)\n"
            "    return model\n",
            ((4, 8), (7, 31)),
        ),
        Invalid(  # a warning whose ``else`` turns something on: the test picks between them
            "import logging\nimport torch\nlog = logging.getLogger(__name__)\nclass M:\n    def setup(self):\n"
            "        if not torch.cuda.is_available():\n            log.warning('AMP needs CUDA')\n        else:\n"
            "            self.amp = True\n",
            ((6, 16),),
        ),
        Invalid(  # one condition of two imported queries is one finding
            "from torch.backends.mps import is_available, is_built\ndef f(x):\n"
            "    if is_available() and is_built():\n        x = x * 2\n    return x\n",
            ((3, 8),),
        ),
        Invalid(  # a bare device word added to a message may name a backend; a tensor moved in the block
            "import torch\ndef f(msg, parts, x):\n    if torch.cuda.is_available():\n        msg += 'cuda'\n"
            "    if torch.cuda.is_available():\n        parts.append(x.cuda())\n    return msg, parts\n",
            ((3, 8), (5, 8), (6, 22)),
        ),
        Invalid(  # a query shown and then branched on; a branch that waits for the device
            "import torch\ndef f(x):\n    cuda = torch.cuda.is_available()\n    print(f'cuda: {cuda}')\n"
            "    if cuda:\n        x = x * 2\n    if x.is_cuda:\n        torch.cuda.synchronize()\n    return x\n",
            ((3, 12), (7, 8), (8, 9)),
        ),
        Invalid(  # a guard before work that runs only on the other device's way
            "import torch, warnings\ndef f(x):\n    if torch.cuda.is_available():\n        return\n"
            "    warnings.warn('slow')\n    x.mul_(2)\n",
            ((3, 8),),
        ),
        Invalid(  # a device given as the default of a lookup, and a device type tested by its prefix
            "import torch\nclass A:\n    def __init__(self, options):\n"
            "        self.kind = options.pop('device_type', 'cuda')\n"
            "def wrap(model, device):\n    if device.type.startswith('cuda'):\n        model = fuse(model)\n"
            "    return model\n",
            ((4, 48), (6, 8)),
        ),
        Invalid(  # an else that moves work, an arm that computes, a query that is read
            "import torch\ndef f(data):\n    if torch.cuda.is_available():\n"
            "        st = torch.cuda.get_rng_state()\n"
            "    else:\n        st = data.cuda()\n    device = data.device\n"
            "    return st, ('cpu' if device.type == 'cpu' else fused(data))\n"
            "gpus = torch.cuda.device_count()\nprint(gpus)\n",
            ((3, 8), (6, 14), (8, 26), (9, 8)),
        ),
        Invalid(  # an accelerator type picked once, then compared with a device later
            "import torch\nclass Offload:\n    def __init__(self, npu):\n"
            "        self.accelerator_type = 'npu' if npu else 'cuda'\n"
            "    def pack(self, x):\n        if self.accelerator_type == 'npu':\n            return npu_pack(x)\n"
            "        return x\n",
            ((4, 33), (6, 12)),
        ),
        Invalid(  # a decorator that is itself a device API, or whose argument queries the device (a CUDA test)
            "import torch, pytest\n@torch.cuda.amp.custom_fwd(cast_inputs=torch.float16)\ndef f(x):\n"
            "    return x\n@pytest.mark.skipif(not torch.cuda.is_available(), reason='gpu')\ndef test_f():\n"
            "    pass\n@torch.cuda.amp.autocast\ndef g(x):\n    return x\n",
            ((2, 2), (5, 25), (8, 2)),
        ),
        Invalid(  # torch through a star import: the test, the device query and the literal device
            "from .torch_imports import *\ndef device():\n    if torch.cuda.is_available():\n"
            "        return torch.device(torch.cuda.current_device())\n    return torch.device('mps', 0)\n",
            ((3, 8), (4, 29), (5, 12)),
        ),
        Invalid(  # the caught error class routes nothing; a handler that moves work does
            "import torch\ndef run(f, x):\n    try:\n        return f(x)\n"
            "    except torch.cuda.OutOfMemoryError:\n        return f(x.cuda(1))\n",
            ((6, 18),),
        ),
        Invalid(  # a device attribute tested for a substring picks the autocast device
            "import torch\nclass Trainer:\n    def setup(self):\n        if 'cuda' in self.device:\n"
            "            self.amp = 'cuda'\n        else:\n            self.amp = 'cpu'\n",
            ((4, 12),),
        ),
        Invalid(  # with an ``else``, the device picks between a blocking check and an asynchronous one
            "import torch\ndef check(mask, ok, message):\n    if mask.device.type == 'mps':\n"
            "        if not bool(ok):\n            raise RuntimeError(message)\n    else:\n"
            "        torch._assert_async(ok, message)\n",
            ((3, 8),),
        ),
        Invalid(  # a nested arm that routes
            "import torch\ndef check(a, b):\n    if b.device.type == 'cuda':\n"
            "        if a.device.type == 'cuda':\n            return a.cuda() * b\n"
            "        raise TypeError('input must be on GPU')\n    return a * b\n",
            ((3, 8), (4, 12), (5, 20)),
        ),
        Invalid(  # bare words a call can take: a backend chosen by the device
            "import torch\ndef backend(x):\n    return 'nccl' if x.is_cuda else 'gloo'\n", ((3, 22),)
        ),
        Invalid(
            "import torch\ndef f(x, opt, cuda):\n    device = torch.device('cuda' if opt['num_gpu'] else 'cpu')\n"
            "    y = x.to(device='cuda' if cuda else 'cpu')\n    return x.to('cpu' if cuda else 'mps'), y\n",
            ((3, 14), (4, 14), (5, 17)),
        ),
        Invalid(
            "import torch\nclass Loader:\n    def __init__(self, device):\n"
            "        self.is_cuda = device.type == 'cuda'\n        if device.type != 'mps':\n"
            "            logger.info('pinned memory off')\n        if device.type == 'npu':\n"
            "            assert torch.npu.is_available()\n",
            ((4, 24),),
        ),
        Invalid(
            "import torch\ndef f(x, seed):\n    if torch.cuda.initial_seed() == seed:\n        x = x * 2\n"
            "    return x\n",
            ((3, 8),),
        ),
        Invalid("import torch\ny = x.cuda()\n", ((2, 5),), fixed="import torch\ny = x\n"),
        Invalid(
            "import torch\nclass Holder:\n    volume: torch.Tensor = volume.cuda()\n",
            ((3, 28),),
            fixed="import torch\nclass Holder:\n    volume: torch.Tensor = volume\n",
        ),
        Invalid(
            "import torch\ndef f(volume):\n    volume: torch.Tensor = volume.cuda()\n    return volume\n",
            ((3, 28),),
            fixed="import torch\ndef f(volume):\n    volume: torch.Tensor\n    return volume\n",
        ),
        Invalid(
            "import torch\ny = x.float().cuda(non_blocking=True)\n",
            ((2, 5),),
            fixed="import torch\ny = x.float()\n",
        ),
        Invalid("import torch\ny = x.to('cuda:0')\n", ((2, 10),)),
        Invalid("import torch\ny = torch.ones(2, device='mps')\n", ((2, 19),)),
        Invalid("import torch as T\nd = T.device('cuda', 0)\n", ((2, 5),)),
        Invalid("import torch\nif torch.cuda.is_available():\n    pass\n", ((2, 4),)),
        Invalid("import torch\nif x.is_cuda:\n    pass\n", ((2, 4),)),
        Invalid("from torch.backends import mps\nok = mps.is_available()\nrun(ok)\n", ((2, 6),)),
        Invalid(
            "import torch\nif x.device.type == 'cuda':\n    pass\nif x.device.type != 'mps':\n    pass\n"
            "ok = x.device.type in ('cuda', 'mps')\n",
            ((2, 4), (4, 4), (6, 6)),
        ),
        Invalid(
            "import torch\nwith torch.autocast('cuda', enabled=amp):\n    pass\n"
            "with torch.autocast(device_type='cuda'):\n    pass\n",
            ((2, 6), (4, 6)),
        ),
        Invalid("import torch\nd = torch.device(f'cuda:{i}')\ny = x.to(f'cuda:{rank}')\n", ((2, 5), (3, 10))),
        Invalid(  # a device string built at run time: concatenated, %-formatted, ``.format``, via a local
            "import torch\ndef shard(x, k):\n    y = x.to('cuda:' + str(k + 1))\n"
            "    z = torch.zeros(2, device='cuda:%d' % k)\n    w = torch.device('xpu:{}'.format(k))\n"
            "    target = 'cuda:%d' % k\n    return y, z, w, x.to(target)\n",
            ((3, 14), (4, 24), (5, 9), (7, 26)),
        ),
        Invalid(
            "import torch\nif x.is_cuda or x.is_mps:\n    pass\n"
            "if torch.cuda.is_available() or torch.backends.mps.is_available():\n    pass\n",
            ((2, 4), (4, 4)),
        ),
        Invalid(
            "import torch\ndef f(volume, grid):\n    volume = volume.cuda()\n    return g(volume, grid)\n",
            ((3, 14),),
            fixed="import torch\ndef f(volume, grid):\n    return g(volume, grid)\n",
        ),
        Invalid("import torch\ndef f(x, device='cuda'):\n    return x.to(device)\n", ((2, 17),)),
        Invalid(
            "import torch\ndef f(x):\n    options = {'device': 'cuda', 'dtype': x.dtype}\n"
            "    return torch.zeros(3, **options)\n",
            ((3, 26),),
        ),
        Invalid("import torch\nprof = torch.profiler.profile(use_device='cuda')\n", ((2, 31),)),
        Invalid(
            "import torch\ndef f(x):\n    kind = x.device.type\n    y = x * 2\n    if kind == 'mps':\n"
            "        return g(y)\n    return y\n",
            ((5, 8),),
        ),
        Invalid(
            "import torch\ndef f(x):\n    if x.device.type != 'cpu':\n        return fused(x)\n"
            "    return plain(x)\n",
            ((3, 8),),
        ),
        Invalid(  # shown in a log, but asking for the current device initialises CUDA
            "import logging, torch\nlog = logging.getLogger(__name__)\n"
            "log.info('Active device: GPU' + str(torch.cuda.current_device()))\n",
            ((3, 37),),
        ),
        Invalid(  # one part of an ``and`` chain: directly, through a local, on an attribute naming a device
            "import torch\ndef f(x, fast):\n    if fast and x.device.type != 'cpu':\n        return fused(x)\n"
            "    return plain(x)\n",
            ((3, 17),),
        ),
        Invalid(
            "import torch\ndef f(x, fast):\n    kind = x.device.type\n"
            "    if fast and kind != 'cpu' and x.ndim == 5:\n        y = fused(x)\n"
            "    else:\n        y = plain(x)\n    return y\n",
            ((4, 17),),
        ),
        Invalid(
            "import torch\nclass P:\n    def run(self, x):\n        if self.on_device and self.device != 'cpu':\n"
            "            try:\n                return self.fused(x)\n            except RuntimeError:\n"
            "                pass\n        return self.plain(x)\n",
            ((4, 31),),
        ),
        Invalid(
            "import torch\ndef f(x):\n    if torch.cuda.get_device_capability()[0] >= 8:\n"
            "        return fused(x)\n"
            "    return plain(x)\n",
            ((3, 8),),
        ),
        Invalid(  # a device picked once and handed on: a local, an attribute, an annotated name
            "import torch\ndef load(model, use_gpu):\n    device = 'cuda:0' if use_gpu else 'cpu'\n"
            "    return model.to(device)\n",
            ((3, 14),),
        ),
        Invalid(
            "import torch\nclass Runner:\n    def __init__(self):\n        self.device = 'mps'\n"
            "        self.device_type: str = 'npu'\n",
            ((4, 23), (5, 33)),
        ),
        Invalid(  # the names out-of-tree backends go by
            "import torch\ndef gather(state, x):\n    if state.device.type == 'neuron':\n        return g(x)\n"
            "    if device_type in ('tpu', 'musa'):\n        return h(x)\n    return x\n",
            ((3, 8), (5, 8)),
        ),
        Invalid(  # ``== "cpu"`` whose ``else`` is another route: directly, through a local, on an attribute
            "import torch\ndef f(x):\n    if x.device.type == 'cpu':\n        return plain(x)\n"
            "    else:\n        return fused(x)\n",
            ((3, 8),),
        ),
        Invalid(
            "import torch\ndef f(x):\n    kind = x.device.type\n    if kind == 'cpu':\n        y = plain(x)\n"
            "    elif x.ndim == 5:\n        y = fused(x)\n    else:\n        y = x\n    return y\n",
            ((4, 8),),
        ),
        Invalid(
            "import torch\nclass E:\n    def run(self, x):\n        if self.embedding.device.type == 'cpu':\n"
            "            return self.embedding(x)\n        else:\n            return torch.gather(self.w, 0, x)\n",
            ((4, 12),),
        ),
        Invalid(  # an ``elif`` naming the device is the route choice; a device test and the arm it picks, one
            "import torch\ndef f(x):\n    if x.device.type == 'cpu':\n        n = 1\n"
            "    elif x.device.type in ('cuda', 'mps'):\n        n = 8\n    else:\n        n = 2\n"
            "    device = 'cuda' if torch.cuda.is_available() else 'cpu'\n    return n, device\n",
            ((5, 10), (9, 24)),
        ),
        Invalid(  # one choice wherever it goes: the finding is the test's; a test naming no device, the literal's
            "import torch\ndef f(x, gpu, device='cuda' if torch.cuda.is_available() else 'cpu'):\n"
            "    a = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
            "    b = torch.zeros(3, device='mps' if torch.backends.mps.is_available() else 'cpu')\n"
            "    c = x.to('cuda' if torch.cuda.is_available() else 'cpu')\n"
            "    d = torch.device('cuda' if gpu else 'cpu')\n"
            "    kw = {'device': 'cuda' if torch.cuda.is_available() else 'cpu'}\n    return a, b, c, d, kw\n",
            ((2, 32), (3, 32), (4, 40), (5, 24), (6, 9), (7, 31)),
        ),
        Invalid(  # a branch that picks a backend by name, or has an ``else``, routes work
            "import torch\ndef setup(env):\n    if torch.cuda.is_available():\n        env.backend = 'nccl'\n"
            "    if torch.cuda.is_available():\n        env.gpu = torch.cuda.get_device_name(0)\n    else:\n"
            "        env.gpu = None\n        env.threads = 4\n",
            ((3, 8), (5, 8)),
        ),
        Invalid(  # the same tests in conditional expressions
            "import torch\ndef f(preds, amp):\n    top = preds.max(1).indices if preds.device.type == 'cpu' "
            "else preds.argmax(1)\n    half = 16 if (preds.device.type != 'cpu' and amp) else None\n"
            "    return top, half\n",
            ((3, 35), (4, 19)),
        ),
        Invalid(  # a device handed on through ``functools.partial``, or compared as text
            "import torch\nfrom functools import partial\nfrom torch.amp import autocast\n"
            "ctx = partial(autocast, 'cuda', enabled=False)\ndef f(x, device):\n"
            "    if gpu and str(device) != 'cpu':\n        return to_gpu(x)\n    return x\n",
            ((4, 7), (6, 16)),
        ),
        Invalid(  # both sides of one comparison are one test
            "import torch\ndef f(w, x):\n    if w.is_cuda != x.is_cuda:\n        w = w.to(x.device)\n"
            "    return w\n",
            ((3, 8),),
        ),
        Invalid(
            "import torch\ndef f(volume):\n    if big:\n        volume = volume.cuda()\n    return volume\n",
            ((4, 18),),
            fixed="import torch\ndef f(volume):\n    if big:\n        pass\n    return volume\n",
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._conditions: set[int] = set()
        #: Findings on a conditional expression that names a device in an arm, kept until its test
        #: is read: the finding, by the id of the conditional expression.
        self._deferred: dict[int, tuple[cst.CSTNode, str, str, PendingFix | None]] = {}
        #: Findings in an arm of a conditional expression, kept until the test has been read.
        self._arm_findings: dict[int, list[tuple[cst.CSTNode, str, str, PendingFix | None]]] = {}

    def _report(self, node: cst.CSTNode, what: str, effect: str, fix: PendingFix | None = None) -> None:
        """Report ``node`` unless another device test of the same condition was reported, or the
        device is only mentioned: in an annotation, or in a test whose branch only raises or warns
        (validation: the route stays on the CPU) or only describes the machine."""
        ancestors = self.ctx.ancestors
        if _in_annotation(ancestors) or _in_caught_type(ancestors) or _guards_only_a_rejection(ancestors):
            return
        if _is_error_class(what) or _decorator_argument(ancestors):
            return
        if _guards_only_a_description(self.ctx) or _guards_only_housekeeping(self.ctx):
            return
        if _sets_only_unread_flags(self.ctx):
            return
        if _counts_devices_for_a_description(self.ctx):
            return
        if _guards_what_else_does(self.ctx.ancestors):
            return
        condition = _condition_of(self.ctx.ancestors)
        if condition is not None:
            if id(condition) in self._conditions:
                return
            self._conditions.add(id(condition))
        choice = _choice_around_arm(self.ctx.ancestors) if effect == _NAMES else None
        if choice is not None:  # ``torch.device("cuda") if torch.cuda.is_available() else ...``: the
            # arm is read before the test, and the choice's finding is its test's when that is reported;
            # a move or a backend call in an arm (``x.cuda() if ... else x``) is work of its own
            if id(choice) not in self._conditions:
                self._arm_findings.setdefault(id(choice), []).append((node, what, effect, fix))
            return
        self.report(node, fix=fix, what=what, effect=effect)

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        qualname = ctx.qualname(node.func)
        args = positional(node) or list(node.args)
        if qualname == "functools.partial" and args:  # ``partial(autocast, "cuda", enabled=False)``
            qualname, args = ctx.qualname(args[0].value), args[1:]
        if qualname == "torch.device" or qualname in _AUTOCAST:
            if args and _names_non_cpu_device(self.ctx, args[0].value):
                name = qualname.rpartition(".")[2] if qualname in _AUTOCAST else "device"
                self._report_value(node, args[0].value, f"torch.{name}({_shown(args[0].value)})", _NAMES)
                return
            qualname = ctx.qualname(node.func)
        if not ctx.reaches_torch:
            return
        for name in _DEVICE_KEYWORDS:
            device = keyword(node, name)
            if device is not None and _names_non_cpu_device(self.ctx, device.value):
                self._report_value(device, device.value, f"{name}={_shown(device.value)}", _NAMES)
        if qualname is not None:
            return
        method = method_name(node)
        if (
            method in ("get", "pop", "setdefault")
            and len(args) == 2
            and string_value(args[0].value) in _DEVICE_KEYWORDS
        ):
            default = args[1].value  # ``options.pop("device_type", "cuda")``: the device when none is given
            if _names_non_cpu_device(self.ctx, default):
                self._report_value(
                    default, default, f"{method}({_shown(args[0].value)}, {_shown(default)})", _NAMES
                )
        elif method == "startswith" and args and _names_non_cpu(args[0].value):
            if self._is_device_type(node.func.value) and not self._queries_elsewhere():  # type: ignore[attr-defined]
                self._report(node, source_of(node), _TESTS)
        if method in _DEVICE_METHODS:
            self._report(node, f".{method}()", _MOVES, fix=_drop_device_call(ctx, node))
        elif method == "to":
            for arg in positional(node):
                if _names_non_cpu_device(self.ctx, arg.value) or self._bound_to_non_cpu(arg.value):
                    self._report_value(arg, arg.value, f".to({_shown(arg.value)})", _MOVES)

    def _bound_to_non_cpu(self, value: cst.BaseExpression) -> bool:
        """``target = "cuda:%d" % rank`` then ``.to(target)``: a local bound to a device string under a
        name that does not say so, whose binding is therefore not reported itself."""
        if not isinstance(value, cst.Name) or _is_device_name(value.value):
            return False
        bound = bound_value(self.ctx, value)
        return bound is not None and not isinstance(bound, cst.IfExp) and _names_non_cpu_device(self.ctx, bound)

    def _queries_elsewhere(self) -> bool:
        """The condition around the visited node also names a device module
        (``device.startswith("cuda") and torch.cuda.is_available()``), whose finding is the condition's."""
        condition = _condition_of(self.ctx.ancestors)
        return condition is not None and any(
            isinstance(found, cst.Attribute) and is_torch_name(self.ctx.qualname(found), *_DEVICE_MODULES)
            for found in walk(condition)
        )

    def visit_Param(self, node: cst.Param) -> None:
        """``def f(x, device="cuda")``: the route callers get unless they pass another device."""
        if self.ctx.reaches_torch and node.default is not None and _is_device_name(node.name.value):
            if _names_non_cpu_device(self.ctx, node.default):
                what = f"{node.name.value}={_shown(node.default)}"
                self._report_value(node.default, node.default, what, _NAMES)

    def visit_Assign(self, node: cst.Assign) -> None:
        """``device = "cuda:0" if gpu else "cpu"``, ``self.device = "mps"``: a device picked once and
        handed on later (``model.to(device)``)."""
        for target in node.targets:
            self._device_binding(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._device_binding(node.target, node.value)

    def _device_binding(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        name = target.attr.value if isinstance(target, cst.Attribute) else getattr(target, "value", None)
        if self.ctx.reaches_torch and isinstance(name, str) and _is_device_name(name):
            if not _names_non_cpu_device(self.ctx, value):
                return
            self._report_value(value, value, f"{source_of(target)} = {_shown(value)}", _NAMES)

    def _report_value(
        self, node: cst.CSTNode, value: cst.BaseExpression, what: str, effect: str, fix: PendingFix | None = None
    ) -> None:
        """Report ``node`` for the device literal ``value``. A conditional expression
        (``"cuda" if torch.cuda.is_available() else "cpu"``) is one choice: its finding waits for
        the test (``leave_IfExp``), and is dropped when the test itself was reported."""
        if isinstance(value, cst.IfExp):
            self._deferred[id(value)] = (node, what, effect, fix)
        else:
            self._report(node, what, effect, fix)

    def leave_IfExp(self, node: cst.IfExp) -> None:
        for found, what, effect, fix in self._arm_findings.pop(id(node), []):
            if id(node) not in self._conditions:
                self.report(found, fix=fix, what=what, effect=effect)
        pending = self._deferred.pop(id(node), None)
        if pending is not None and id(node) not in self._conditions and not _bound_unread(self.ctx):
            self._report(*pending)  # a choice only shown (``device = "cuda" if ... else "cpu"``) routes nothing

    def visit_DictElement(self, node: cst.DictElement) -> None:
        """``{"device": "cuda"}``: keyword arguments built as a dict and passed on with ``**``."""
        key = string_value(node.key)
        if self.ctx.reaches_torch and key in _DEVICE_KEYWORDS and _names_non_cpu_device(self.ctx, node.value):
            self._report_value(node.value, node.value, f"{key}={_shown(node.value)}", _NAMES)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if not self.ctx.reaches_torch:
            return
        operands = [node.left, *(target.comparator for target in node.comparisons)]
        if not any(self._is_device_type(o) for o in operands):
            return
        names_device = any(_names_non_cpu(o) for o in operands)
        if names_device or self._picks_non_cpu_route(node, operands):
            splits = _affirmed(node) and not names_device  # ``== "cpu"``: every other device goes elsewhere
            self._report(node, source_of(node), _SPLITS if splits else _TESTS)

    def _is_device_type(self, node: cst.BaseExpression) -> bool:
        """``x.device.type``, a name that holds one (``kind = x.device.type``), or a name or attribute
        that says it holds a device (``device``, ``device_type``, ``self.device``), also as text
        (``str(device)``)."""
        if _is_device_type(node) or self._returns_device_type(node):
            return True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "str":
            return len(node.args) == 1 and self._is_device_type(node.args[0].value)
        if isinstance(node, cst.Attribute):  # ``self.device``, ``cfg.device_type``
            return _is_device_name(node.attr.value)
        if not isinstance(node, cst.Name):
            return False
        return _is_device_name(node.value) or node.value in _device_type_locals(self.ctx)

    def _returns_device_type(self, node: cst.BaseExpression) -> bool:
        """A call to a project function that returns ``x.device.type``, here or in another module."""
        return _call_returns_device_type(self.ctx, node)

    def _picks_non_cpu_route(self, node: cst.Comparison, operands: list[cst.BaseExpression]) -> bool:
        """``x.device.type != "cpu"`` in an ``if`` whose body does more than fall back to the CPU
        (raise, warn, or move the input with ``.cpu()``/``.to("cpu")``): a non-CPU route."""
        names_cpu = any(_is_cpu(o) or _names_cpu_only(o) for o in operands)
        above = [a for a in reversed(self.ctx.ancestors[:-1]) if not isinstance(a, cst.BooleanOperation)]
        statement = above[0] if above else None
        if names_cpu and isinstance(statement, cst.IfExp) and not _is_text(statement.body):
            return _picks_non_cpu_arm(node, statement)
        if not names_cpu or not isinstance(statement, cst.If):
            return False
        if _negated(node):
            in_chain = any(part is node for part in conjuncts(statement.test))
            return in_chain and not _falls_back_to_cpu(statement.body)
        # ``if x.device.type == "cpu": ... else: <route>``: the other arm runs on every other device
        return _affirmed(node) and statement.test is node and _other_arm_routes(statement.orelse)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        ctx = self.ctx
        qualname = ctx.qualname(node)
        if (qualname is None and node.attr.value not in _DEVICE_FLAGS) or not is_reference(ctx, node):
            return
        if is_torch_name(qualname, *_DEVICE_MODULES):
            member = (qualname or "").rpartition(".")[2]
            if _starts_nothing(ctx, member) or _names_an_alias(ctx.ancestors):
                return
            self._report(node, ".".join((qualname or "").split(".")[:3]), _USES)
        elif qualname is None and node.attr.value in _DEVICE_FLAGS and ctx.reaches_torch:
            if _is_assignment_target(ctx.ancestors):  # ``self.is_cuda = ...`` binds, it tests nothing
                return
            if _only_shown(ctx.ancestors) or any(isinstance(n, cst.Raise) for n in ctx.ancestors):
                return  # ``f"{tensor.is_cuda=}"`` in a message: it tells, it tests nothing
            self._report(node, f".{node.attr.value}", _TESTS)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value not in self.ctx.imported_names:  # any other bare name has no qualified name
            return
        qualname = self.ctx.qualname(node)
        if not is_torch_name(qualname, *_DEVICE_MODULES) or not is_reference(self.ctx, node):
            return
        if _is_assignment_target(self.ctx.ancestors):
            return  # ``cuda = None`` where the import failed binds a stand-in; it uses nothing
        member = (qualname or "").rpartition(".")[2]
        if not _starts_nothing(self.ctx, member):
            self._report(node, qualname or "", _USES)


def _names_an_alias(ancestors: list[cst.CSTNode]) -> bool:
    """The visited name is the whole value of a module-level alias (``_cuda = torch.cuda``): another
    spelling of the module, whose uses are reported where they are made."""
    if len(ancestors) < 4:
        return False
    binding, line, module = ancestors[-2], ancestors[-3], ancestors[-4]
    return (
        isinstance(binding, cst.Assign | cst.AnnAssign)
        and binding.value is ancestors[-1]
        and isinstance(line, cst.SimpleStatementLine)
        and isinstance(module, cst.Module)
    )


def _starts_nothing(ctx, member: str) -> bool:
    """The visited device-module member is introspection, or a query read only to be shown, outside a
    test that picks what runs; or a query whose value, or the device picked from it, is bound to a
    name only shown (``device = torch.device("cuda" if torch.cuda.is_available() else "cpu")`` then
    ``print(f"Device: {device}")``)."""
    if member in _SHOWN_QUERIES and _bound_unread(ctx):
        return True
    shown = member in _INTROSPECTION or (member in _SHOWN_QUERIES and _only_shown(ctx.ancestors))
    if member in _HARDWARE_TRAITS and _compared(ctx.ancestors):
        return False  # ``capability[0] >= 8`` decides something, as a test would
    return shown and not _in_test(ctx.ancestors)


def _compared(ancestors: list[cst.CSTNode]) -> bool:
    """The visited node is an operand of a comparison in its statement, outside text shown to
    someone (``ok = torch.cuda.get_device_capability()[0] >= 8``)."""
    if _only_shown(ancestors):
        return False
    for node in reversed(ancestors[:-1]):
        if isinstance(node, cst.Comparison):
            return True
        if isinstance(node, cst.BaseStatement | cst.BaseSmallStatement | cst.Lambda):
            return False
    return False


def _is_device_name(name: str) -> bool:
    """``device``, ``device_type``, ``self.accelerator_type``: a name that says it holds a device."""
    lowered = name.lower()
    return "device" in lowered or "accelerator" in lowered


def _device_type_locals(ctx) -> frozenset[str]:
    """Names the file binds to a device type read (``kind = x.device.type``); computed once."""
    key = ("device-type-locals", id(ctx.module))
    found = ctx.facts.get(key)
    if found is None and not _may_read_device_type(ctx):
        found = ctx.facts[key] = frozenset()
    if found is None:
        names = {
            target.target.value
            for node in walk(ctx.module)
            if isinstance(node, cst.Assign)
            and (_is_device_type(node.value) or _call_returns_device_type(ctx, node.value))
            for target in node.targets
            if isinstance(target.target, cst.Name)
        }
        found = ctx.facts[key] = frozenset(names)
    return found  # type: ignore[return-value]


#: A ``.type`` attribute that is not called (``x.type(torch.float16)`` converts, and ``.type_as`` is
#: another name).
_TYPE_READ = re.compile(r"\.type\b(?!\s*\()")


def _may_read_device_type(ctx) -> bool:
    """Whether the file's text can hold a device type read: a ``.type`` attribute, or the name of a
    project function that returns one (a file with neither need not be walked)."""
    if _TYPE_READ.search(ctx.text):
        return True
    readers = (name for name, kind in ctx.kernel.returns.items() if kind == "device-type")
    return any(name.rpartition(".")[2] in ctx.text for name in readers)


def _call_returns_device_type(ctx, node: cst.BaseExpression) -> bool:
    """A call to a project function that returns ``x.device.type``, here or in another module."""
    return _call_returns(ctx, node, "device-type")


def _call_returns(ctx, node: cst.BaseExpression, kind: str) -> bool:
    """A call to a project function, here or in another module, the project index says returns ``kind``."""
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    callee = ctx.qualname(func) or (f"{ctx.module_name}.{func.value}" if isinstance(func, cst.Name) else "")
    return ctx.kernel.returns.get(callee) == kind


def _names_non_cpu_device(ctx, node: cst.BaseExpression) -> bool:
    """``"cuda"``, ``"cuda:" + str(i)``, a call to a project function every return of which names
    such a device (``device_for(rank)``), or a conditional expression with such an arm (``"cuda" if
    gpus else "cpu"``): the value names a non-CPU device on one path at least."""
    if isinstance(node, cst.IfExp):
        return _names_non_cpu_device(ctx, node.body) or _names_non_cpu_device(ctx, node.orelse)
    return is_non_cpu_device_string(node) or _call_returns(ctx, node, DEVICE_NAME)


def _names_cpu_only(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Tuple | cst.List | cst.Set) and all(_is_cpu(e.value) for e in node.elements)


def _is_cpu(node: cst.BaseExpression) -> bool:
    """``"cpu"``, or the CPU device made from it (``torch.device("cpu")``)."""
    if _makes_device(node):
        return len(node.args) == 1 and string_value(node.args[0].value) == "cpu"  # type: ignore[attr-defined]
    return string_value(node) == "cpu"


def _falls_back_to_cpu(body: cst.BaseSuite) -> bool:
    """The block raises, warns, or only moves values to the CPU."""
    if _rejects(body) or only_reports(body):
        return True
    for node in walk(body):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            to_cpu = method == "to" and any(_is_cpu(arg.value) for arg in node.args)
            if method == "cpu" or to_cpu:
                return True
    return False


def _negated(node: cst.Comparison) -> bool:
    """``!=`` or ``not in`` throughout: the test holds off the device it names."""
    return all(isinstance(t.operator, cst.NotEqual | cst.NotIn) for t in node.comparisons)


def _affirmed(node: cst.Comparison) -> bool:
    """``==`` or ``in`` throughout: the test holds on the device it names."""
    return all(isinstance(t.operator, cst.Equal | cst.In) for t in node.comparisons)


def _picks_non_cpu_arm(node: cst.Comparison, choice: cst.IfExp) -> bool:
    """``a if x.device.type == "cpu" else b`` and ``b if x.device.type != "cpu" and amp else a``: the
    test picks, for other devices, an arm that does more than move values to the CPU."""
    if _negated(node):
        on_device = choice.body if any(part is node for part in conjuncts(choice.test)) else None
    elif _affirmed(node):
        on_device = choice.orelse if choice.test is node else None
    else:
        on_device = None
    return on_device is not None and not _moves_to_cpu(on_device)


def _moves_to_cpu(arm: cst.BaseExpression) -> bool:
    """``x.cpu()``, or only a reading of which device it is (``device.index``, ``device.type``, a key
    naming where a value came from): neither runs anything on another device."""
    if isinstance(arm, cst.Attribute) and arm.attr.value in ("index", "type"):
        return True
    return isinstance(arm, cst.Call) and isinstance(arm.func, cst.Attribute) and arm.func.attr.value == "cpu"


def _other_arm_routes(orelse: cst.If | cst.Else | None) -> bool:
    """An ``else`` (or ``elif``) that does more than reject or fall back to the CPU."""
    if isinstance(orelse, cst.Else):
        return not _falls_back_to_cpu(orelse.body)
    if not isinstance(orelse, cst.If) or arms_only_reject(orelse, _rejects):
        return False
    # ``elif x.device.type == "cuda":`` is reported itself: the chain is one route choice
    return not any(_names_non_cpu(n) for n in walk(orelse.test) if isinstance(n, cst.BaseExpression))


def _rejects(body: cst.BaseSuite) -> bool:
    """The block raises an error of its own, or only asserts. A bare ``raise`` (in an ``except``
    block) passes the failure on for other devices, so what follows the test is that device's own
    route."""
    lines = body.body if isinstance(body, cst.IndentedBlock) else [body]
    statements = [s for line in lines if isinstance(line, cst.SimpleStatementLine) for s in line.body]
    if statements and len(statements) == len(lines) and all(isinstance(s, cst.Assert) for s in statements):
        return True  # ``if device_type == "npu": assert torch.npu.is_available(), "..."``
    if not only_raises(body):
        return False
    last = [n for n in walk(body) if isinstance(n, cst.Raise)][-1]
    return last.exc is not None


def _only_shown(ancestors: list[cst.CSTNode]) -> bool:
    """The visited node is read only to be shown to someone: inside an f-string of prose
    (``f"{torch.cuda.device_count()} GPUs found"``), an argument of a printing, logging or warning
    call (``logger.info("devices: " + str(device_count()))``), or turned into text by ``str`` or
    ``repr`` (``env["cuda"] = str(torch.cuda.is_available())``). A bare word such as
    ``f"cuda:{torch.cuda.current_device()}"`` can name a device, so it is not prose."""
    child = ancestors[-1]
    for node in reversed(ancestors[:-1]):
        if isinstance(node, cst.FormattedString) and _is_text(node):
            return True
        if isinstance(node, cst.Call) and child is not node.func and (is_report(node) or _to_text(node)):
            return True
        if isinstance(node, cst.BaseStatement | cst.BaseSmallStatement):
            return False
        child = node
    return False


def _to_text(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Name) and call.func.value in ("str", "repr")


def _is_assignment_target(ancestors: list[cst.CSTNode]) -> bool:
    parent = ancestors[-2] if len(ancestors) > 1 else None
    return isinstance(parent, cst.AssignTarget | cst.AnnAssign | cst.AugAssign) and parent.target is ancestors[-1]


def _in_annotation(ancestors: list[cst.CSTNode]) -> bool:
    return any(isinstance(node, cst.Annotation) for node in ancestors)


def _in_caught_type(ancestors: list[cst.CSTNode]) -> bool:
    """``except torch.cuda.OutOfMemoryError:`` names an error the code may meet; it picks no device.
    What the handler then does is judged on its own."""
    return any(
        isinstance(node, cst.ExceptHandler | cst.ExceptStarHandler) and ancestors[index + 1] is node.type
        for index, node in enumerate(ancestors[:-1])
    )


def _is_error_class(what: str) -> bool:
    """``torch.cuda.OutOfMemoryError`` names an error, wherever it is named: caught, compared with
    ``is`` or given to ``isinstance``, it tells which failure happened and picks no device."""
    return what.rpartition(".")[2].endswith(("Error", "Exception"))


def _decorator_argument(ancestors: list[cst.CSTNode]) -> bool:
    """A device class handed as such to a decorator (``@delegates(GradScaler)``) lends its signature
    or documentation: the decorator runs once, when the function is defined, and moves no work."""
    for index, node in enumerate(ancestors):
        if isinstance(node, cst.Decorator):
            inner = ancestors[index + 1 :]
            if len(inner) < 3:
                return False
            call, arg, *reference = inner
            return (
                isinstance(call, cst.Call)
                and isinstance(arg, cst.Arg)
                and all(isinstance(part, cst.Name | cst.Attribute) for part in reference)
            )
    return False


def _bound_unread(ctx) -> bool:
    """The visited query, or a device picked from it, is the whole value of ``name = ...`` (also
    through a call or a conditional expression: ``torch.device("cuda" if torch.cuda.is_available()
    else "cpu")``) and the file never reads ``name`` (``use_cuda = torch.cuda.is_available()`` left
    behind), or the function around it reads ``name`` only to show it (``f"cuda available: {cuda}"``
    in an environment report): it picks nothing."""
    ancestors = ctx.ancestors
    for index in range(len(ancestors) - 2, -1, -1):
        node = ancestors[index]
        if isinstance(node, cst.Assign):
            names = [t.target.value for t in node.targets if isinstance(t.target, cst.Name)]
            if len(names) != len(node.targets):
                return False
            if all(name not in _names_read(ctx) for name in names):
                return True
            function = ctx.enclosing_function()
            return function is not None and all(_only_shown_in(function, name) for name in names)
        if isinstance(node, cst.Param):
            owner = ancestors[index - 2] if index >= 2 else None
            return (
                node.default is ancestors[index + 1]
                and isinstance(owner, cst.FunctionDef)
                and _flag_only_keeps_house(ctx, owner, node.name.value)
            )
        if isinstance(node, cst.Arg) and not _makes_device(ancestors[index - 1]):
            return False  # an argument of work done on the device (``torch.ones(2, device="mps")``)
        if not isinstance(node, cst.Call | cst.Attribute | cst.Name | cst.Arg | cst.IfExp):
            return False
    return False


def _flag_only_keeps_house(ctx, function: cst.FunctionDef, name: str, depth: int = 2) -> bool:
    """``def fork_rng(seed=None, cuda=torch.cuda.is_available()):`` where ``cuda`` is read only to
    decide whether the device's generators are seeded or their state kept (``if cuda:
    torch.cuda.manual_seed_all(seed)``, ``torch.cuda.get_rng_state_all() if cuda else None``), or is
    handed to a function of this file whose parameter of that name is read only so: the default
    picks no route. At least one read, and every read, must be of these kinds."""
    reads = 0

    def visit(node: cst.CSTNode, path: list[cst.CSTNode]) -> bool:
        nonlocal reads
        if isinstance(node, cst.AssignTarget | cst.Param | cst.FunctionDef | cst.Lambda):
            return not (isinstance(node, cst.AssignTarget) and _binds_name(node.target, name))
        if isinstance(node, cst.Attribute):
            return visit(node.value, [*path, node])
        if isinstance(node, cst.Name) and node.value == name:
            reads += 1
            return _gates_housekeeping(ctx, path, node, depth)
        return all(visit(child, [*path, node]) for child in node.children)

    return visit(function.body, []) and reads > 0


def _binds_name(target: cst.BaseExpression, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for n in walk(target))


def _gates_housekeeping(ctx, path: list[cst.CSTNode], read: cst.Name, depth: int) -> bool:
    """The read ``read`` (reached through ``path``) is the whole test of an ``if`` without ``else``
    that only keeps house, of a conditional expression between two descriptions, or an argument
    handed to a function of this file that reads its parameter only so."""
    parent = path[-1] if path else None
    if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
        parent = path[-2] if len(path) > 1 else None
    if isinstance(parent, cst.If) and parent.orelse is None:
        returns: list[cst.Return] = []
        return _keeps_house_in(ctx, parent.body, returns) and not returns
    if isinstance(parent, cst.IfExp):
        return _is_description(ctx, parent.body) and _is_description(ctx, parent.orelse)
    if isinstance(parent, cst.Arg) and depth > 0 and len(path) > 1 and isinstance(path[-2], cst.Call):
        call = path[-2]
        callee = _module_function(ctx, call.func)
        if callee is None:
            return False
        target = _parameter_for(callee, call, parent)
        return target is not None and _flag_only_keeps_house(ctx, callee, target, depth - 1)
    return False


def _module_function(ctx, func: cst.BaseExpression) -> cst.FunctionDef | None:
    if not isinstance(func, cst.Name):
        return None
    return next(
        (s for s in ctx.module.body if isinstance(s, cst.FunctionDef) and s.name.value == func.value), None
    )


def _parameter_for(function: cst.FunctionDef, call: cst.Call, arg: cst.Arg) -> str | None:
    """The name of ``function``'s parameter that ``arg`` of ``call`` binds."""
    if arg.keyword is not None:
        return arg.keyword.value
    if arg.star:
        return None
    position = [a for a in call.args if a.keyword is None and not a.star].index(arg)
    params = list(function.params.posonly_params) + list(function.params.params)
    return params[position].name.value if position < len(params) else None


def _names_read(ctx, attributes: bool = False) -> frozenset[str]:
    """Every bare name the file reads (``x``), or with ``attributes`` every attribute name it reads
    (``flag`` of ``self.flag``), not counting the targets of assignments, nor what comments or
    strings mention; computed once per file."""
    key = ("names-read", id(ctx.module))
    found = ctx.facts.get(key)
    if found is None:
        targets = {
            id(part)
            for node in walk(ctx.module)
            if isinstance(node, cst.AssignTarget | cst.AnnAssign | cst.AugAssign)
            for part in _target_parts(node.target)
        }
        attribute_names = {id(node.attr) for node in walk(ctx.module) if isinstance(node, cst.Attribute)}
        names = frozenset(
            node.value
            for node in walk(ctx.module)
            if isinstance(node, cst.Name) and id(node) not in targets and id(node) not in attribute_names
        )
        read_attributes = frozenset(
            node.attr.value
            for node in walk(ctx.module)
            if isinstance(node, cst.Attribute) and id(node) not in targets
        )
        found = ctx.facts[key] = (names, read_attributes)
    return found[1] if attributes else found[0]  # type: ignore[index]


def _target_parts(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The names and attributes an assignment target binds (``a``, ``self.flag``, both of ``a, b``)."""
    if isinstance(target, cst.Tuple | cst.List):
        return [part for element in target.elements for part in _target_parts(element.value)]
    if isinstance(target, cst.Attribute):
        return [target]
    return [target] if isinstance(target, cst.Name) else []


def _makes_device(node: cst.CSTNode) -> bool:
    """``torch.device(...)``: a call that only names a device, doing no work on it."""
    return isinstance(node, cst.Call) and (dotted(node.func) or "").rpartition(".")[2] == "device"


def _only_shown_in(function: cst.FunctionDef, name: str, depth: int = 2) -> bool:
    """Every read of ``name`` in ``function`` is shown to someone (see ``_only_shown``), or goes into
    the text bound to another name that is only shown (``gpus = ",".join(str(g) for g in
    range(count))`` then ``print(gpus)``), and there is at least one; assignments to it are not reads."""
    reads = 0

    def visit(node: cst.CSTNode, path: list[cst.CSTNode]) -> bool:
        nonlocal reads
        if isinstance(node, cst.AssignTarget):
            return True  # a binding of the name, not a read
        if isinstance(node, cst.Attribute):
            return visit(node.value, [*path, node])  # ``torch.cuda``: ``cuda`` is a member, not the name
        if isinstance(node, cst.Name) and node.value == name:
            reads += 1
            return _only_shown([*path, node]) or _makes_text_shown(function, path, depth)
        return all(visit(child, [*path, node]) for child in node.children)

    return visit(function.body, []) and reads > 0


def _makes_text_shown(function: cst.FunctionDef, path: list[cst.CSTNode], depth: int) -> bool:
    """The read at the end of ``path`` is part of a value turned into text (a ``join``, ``str`` or
    an f-string) and bound to a single name that the function only shows."""
    if depth == 0:
        return False
    assign = next((node for node in reversed(path) if isinstance(node, cst.Assign)), None)
    if assign is None or len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return False
    value = assign.value
    text = isinstance(value, cst.FormattedString) or (
        isinstance(value, cst.Call)
        and (
            (isinstance(value.func, cst.Attribute) and value.func.attr.value == "join")
            or (isinstance(value.func, cst.Name) and value.func.value in ("str", "repr"))
        )
    )
    return text and _only_shown_in(function, assign.targets[0].target.value, depth - 1)


def _in_test(ancestors: list[cst.CSTNode]) -> bool:
    """Whether the visited node is part of the test of an ``if``, ``while``, conditional expression or
    ``assert`` (a read there chooses what runs)."""
    child = ancestors[-1]
    for node in reversed(ancestors[:-1]):
        if isinstance(node, cst.If | cst.While | cst.IfExp | cst.Assert) and child is node.test:
            return True
        if isinstance(node, cst.BaseStatement | cst.BaseSmallStatement):
            return False
        child = node
    return False


def _guards_only_a_rejection(ancestors: list[cst.CSTNode]) -> bool:
    """The visited node is in the test of an ``if`` whose body only raises or warns, or of an
    ``assert``: a check that refuses (or reports) a device, not a route to it; or in the test of a
    conditional expression that only picks between texts (``" (GPU)" if p.is_cuda else ""``), which
    describes a device and routes nothing."""
    child = ancestors[-1]
    for node in reversed(ancestors[:-1]):
        if isinstance(node, cst.Assert) and child is node.test:
            return True
        if isinstance(node, cst.If) and child is node.test:
            # nested checks count when every arm only rejects: an ``else`` that does something else
            # means the device picks between two ways
            if _rejects(node.body) or arms_only_reject(node, _rejects):
                return True  # a raising block leaves, so an ``else`` runs what would follow anyway
            if only_reports(node.body) and _reports_or_nothing(node.orelse):
                return True  # a warning with an ``else`` that works picks between the two

            return _guards_a_refusal(node, ancestors)
        if isinstance(node, cst.IfExp) and child is node.test:
            return _is_text(node.body) and _is_text(node.orelse)
        if isinstance(node, cst.BaseStatement | cst.BaseSmallStatement):
            return False
        child = node
    return False


def _reports_or_nothing(orelse: cst.If | cst.Else | None) -> bool:
    return orelse is None or (isinstance(orelse, cst.Else) and only_reports(orelse.body))


def _guards_a_refusal(branch: cst.If, ancestors: list[cst.CSTNode]) -> bool:
    """``branch`` is one of the guard clauses of a function that only decides whether to warn or
    raise: its statements are ``if ...: return`` guards (no value, or ``None``) followed by a block
    that only reports or rejects (``_maybe_warn_...``: ``if not torch.cuda.is_available(): return``,
    then ``warnings.warn(...)``). Every way through it tells someone something or does nothing."""
    function = next((n for n in reversed(ancestors) if isinstance(n, cst.FunctionDef)), None)
    if function is None or not isinstance(function.body, cst.IndentedBlock):
        return False
    lines = list(function.body.body)
    if lines and _is_docstring(lines[0]):
        lines = lines[1:]
    guards = 0
    while lines and isinstance(lines[0], cst.If) and lines[0].orelse is None and _returns_nothing(lines[0].body):
        guards += 1
        lines = lines[1:]
    if not guards or not any(line is branch for line in function.body.body) or not lines:
        return False
    rest = function.body.with_changes(body=lines)
    return _rejects(rest) or only_reports(rest) or only_rejects(rest, _rejects)


def _returns_nothing(body: cst.BaseSuite) -> bool:
    """The block is a lone ``return`` or ``return None``."""
    lines = body.body if isinstance(body, cst.IndentedBlock) else [body]
    if len(lines) != 1 or not isinstance(lines[0], cst.SimpleStatementLine | cst.SimpleStatementSuite):
        return False
    statements = lines[0].body
    return (
        len(statements) == 1
        and isinstance(statements[0], cst.Return)
        and (statements[0].value is None or is_literal(statements[0].value, "None"))
    )


def _is_docstring(line: cst.BaseStatement) -> bool:
    return (
        isinstance(line, cst.SimpleStatementLine)
        and isinstance(line.body[0], cst.Expr)
        and isinstance(line.body[0].value, cst.SimpleString | cst.ConcatenatedString)
    )


def _guards_only_a_description(ctx) -> bool:
    """The visited node is in the test of an ``if`` whose block (and ``else``, if any) only fills in a
    description of the machine: ``if torch.cuda.is_available(): return torch.cuda.get_device_name()``
    in an environment report, ``fields[k] = "No CUDA"``, or the CUDA generator's state else ``None``
    for a checkpoint; or of a conditional expression, bound or returned, whose two values are such
    descriptions (``state = torch.mps.get_rng_state() if torch.backends.mps.is_available() else None``).
    Nothing there runs on a device."""
    ancestors = ctx.ancestors
    child = ancestors[-1]
    for index in range(len(ancestors) - 2, -1, -1):
        node = ancestors[index]
        if isinstance(node, cst.If) and child is node.test:
            orelse = node.orelse
            other_describes = orelse is None or (
                isinstance(orelse, cst.Else) and _only_describes(ctx, orelse.body)
            )
            if not (other_describes and _only_describes(ctx, node.body)):
                return False
            # ``if Q.device.type != "cuda": return None`` before the fused kernel skips the work: a
            # return is a description only when all that follows in the function describes too
            returns = orelse is None and any(isinstance(n, cst.Return) for n in walk(node.body))
            return not returns or _rest_describes(ctx, ancestors[: index + 1])
        if isinstance(node, cst.IfExp) and child is node.test:
            holder = ancestors[index - 1]
            return (
                isinstance(holder, cst.Assign | cst.AnnAssign | cst.Return)
                and holder.value is node
                and _is_description(ctx, node.body)
                and _is_description(ctx, node.orelse)
            )
        if isinstance(node, cst.BaseStatement | cst.BaseSmallStatement):
            return False
        child = node
    return False


def _sets_only_unread_flags(ctx) -> bool:
    """The visited node is in the test of an ``if`` whose block, and ``else`` if any, only set flags
    on names or attributes of ``self`` the file never reads (``self.CPU_ONLY = True`` / ``False``
    left behind): the test decides nothing that runs."""
    child = ctx.ancestors[-1]
    for node in reversed(ctx.ancestors[:-1]):
        if isinstance(node, cst.If) and child is node.test:
            blocks = [node.body] + ([node.orelse.body] if isinstance(node.orelse, cst.Else) else [])
            if isinstance(node.orelse, cst.If):
                return False
            return all(_only_sets_unread(ctx, block) for block in blocks)
        if isinstance(node, cst.BaseStatement | cst.BaseSmallStatement):
            return False
        child = node
    return False


def _only_sets_unread(ctx, block: cst.BaseSuite) -> bool:
    """Every statement of ``block`` sets ``True``, ``False`` or ``None`` on a name or an attribute of
    ``self`` that the file never reads (a device literal, or another object's attribute, is handed on)."""
    statements = _simple_statements(block)
    if not statements:
        return False
    for small in statements:
        if not isinstance(small, cst.Assign) or not any(
            is_literal(small.value, flag) for flag in ("True", "False", "None")
        ):
            return False
        for target in small.targets:
            if isinstance(target.target, cst.Name):
                if target.target.value in _names_read(ctx):
                    return False
            elif isinstance(target.target, cst.Attribute) and _is_self(target.target.value):
                if target.target.attr.value in _names_read(ctx, attributes=True):
                    return False
            else:
                return False
    return True


def _is_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"


def _counts_devices_for_a_description(ctx) -> bool:
    """The visited node is in the iterable of a ``for`` loop without ``else`` (``for k in
    range(torch.cuda.device_count()):``) whose body only files a description of each device
    (``devices[torch.cuda.get_device_name(k)].append(str(k))``, ``names[k] = get_device_name(k)``):
    an environment report enumerating the hardware, which runs nothing on it."""
    child = ctx.ancestors[-1]
    for node in reversed(ctx.ancestors[:-1]):
        if isinstance(node, cst.For) and child is node.iter:
            return node.orelse is None and _files_descriptions(ctx, node.body)
        if isinstance(node, cst.BaseStatement | cst.BaseSmallStatement):
            return False
        child = node
    return False


def _files_descriptions(ctx, block: cst.BaseSuite) -> bool:
    """Every statement of ``block`` stores or appends what a device module's description member
    returns (keyed or turned into text by ``str``/``repr``), and calls nothing else."""
    statements = _simple_statements(block)
    if not statements or not all(isinstance(s, cst.Assign | cst.Expr) for s in statements):
        return False
    described = False
    for statement in statements:
        for call in (n for n in walk(statement) if isinstance(n, cst.Call)):
            qualname = ctx.qualname(call.func) or ""
            if is_torch_name(qualname, *_DEVICE_MODULES) and qualname.rpartition(".")[2] in _INTROSPECTION:
                described = True
            elif not (
                _to_text(call) or (isinstance(call.func, cst.Attribute) and call.func.attr.value == "append")
            ):
                return False
    return described


def _guards_what_else_does(ancestors: list[cst.CSTNode]) -> bool:
    """The visited node is in the test of an ``if`` (or ``elif``) whose block does what its ``else``
    does, statement for statement (``elif torch.backends.mps.is_available(): return "cpu"`` then
    ``else: return "cpu"``): either way the same work runs, so the test routes nothing."""
    child = ancestors[-1]
    for node in reversed(ancestors[:-1]):
        if isinstance(node, cst.If) and child is node.test:
            if not isinstance(node.orelse, cst.Else):
                return False
            mine, other = _simple_statements(node.body), _simple_statements(node.orelse.body)
            return (
                bool(mine)
                and len(mine) == len(other)
                and all(a.deep_equals(b) for a, b in zip(mine, other, strict=True))
            )
        if isinstance(node, cst.BaseStatement | cst.BaseSmallStatement):
            return False
        child = node
    return False


def _simple_statements(block: cst.BaseSuite) -> list[cst.BaseSmallStatement]:
    """The small statements of ``block``, or none when it holds a compound statement; comments and
    blank lines between them are left out."""
    lines = block.body if isinstance(block, cst.IndentedBlock) else (block,)
    if not all(isinstance(line, cst.SimpleStatementLine | cst.SimpleStatementSuite) for line in lines):
        return []
    return [small for line in lines for small in line.body]  # type: ignore[attr-defined]


def _guards_only_housekeeping(ctx) -> bool:
    """The visited node is in the test of an ``if`` without ``else`` whose block only keeps house on
    the device: each statement calls a member that manages or describes memory or seeds
    (``torch.xpu.empty_cache()``), hands what one returns to a call (a peak-memory figure for a
    logger), collects garbage, binds a name to such a figure (``allocated =
    torch.cuda.memory_allocated(d)``), or is an ``if`` without ``else`` whose block does the same; a
    bare ``return`` in it counts when what follows the ``if`` in the function only keeps house too.
    Both ways through run the same work on the same device."""
    ancestors = ctx.ancestors
    child = ancestors[-1]
    for index in range(len(ancestors) - 2, -1, -1):
        node = ancestors[index]
        if isinstance(node, cst.If) and child is node.test:
            returns: list[cst.Return] = []
            if node.orelse is not None or not _keeps_house_in(ctx, node.body, returns):
                return False
            if _figures_read_outside(ctx, node):
                return False
            return not returns or _rest_keeps_house(ctx, ancestors[: index + 1])
        if isinstance(node, cst.BaseStatement | cst.BaseSmallStatement):
            return False
        child = node
    return False


def _keeps_house_in(ctx, block: cst.BaseSuite, returns: list[cst.Return]) -> bool:
    """Every statement of ``block`` keeps house (see `_guards_only_housekeeping`); the bare
    ``return`` statements found are added to ``returns``."""
    statements = block.body if isinstance(block, cst.IndentedBlock) else (block,)
    figures: set[str] = set()  # names this block binds to memory figures
    for statement in statements:
        if isinstance(statement, cst.If):
            if statement.orelse is not None or not _only_reads_figures(ctx, statement.test):
                return False
            if not _keeps_house_in(ctx, statement.body, returns):
                return False
        elif isinstance(statement, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            for small in statement.body:
                if isinstance(small, cst.Return) and small.value is None:
                    returns.append(small)
                elif isinstance(small, cst.Expr) and (
                    _keeps_house(ctx, small.value)
                    or _collects_garbage(ctx, small.value)
                    or _stores_figures(ctx, small.value, figures)
                ):
                    continue
                elif isinstance(small, cst.Assign) and _is_figure(ctx, small.value, figures):
                    if all(isinstance(t.target, cst.Name) for t in small.targets):
                        figures.update(t.target.value for t in small.targets)  # type: ignore[attr-defined]
                    elif not all(isinstance(t.target, cst.Subscript) for t in small.targets):
                        return False  # ``stats["gpu_mem"] = figure`` stores it; an attribute keeps it
                else:
                    return False
        else:
            return False
    return bool(statements)


def _is_figure(ctx, value: cst.BaseExpression, figures: set[str]) -> bool:
    """A memory or hardware figure: arithmetic on what a describing member returns
    (``torch.cuda.memory_allocated(d) / 1e6``) or on names bound to such figures in the same block
    (``mem + cache``)."""
    if not _only_reads_figures(ctx, value):
        return False
    if any(isinstance(found, cst.Call) for found in walk(value)):
        return True
    leaves = _operands_of(value)
    return bool(leaves) and all(isinstance(n, cst.Name) and n.value in figures for n in leaves)


def _operands_of(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The leaves of an arithmetic expression that are neither numbers nor calls."""
    if isinstance(value, cst.BinaryOperation):
        return _operands_of(value.left) + _operands_of(value.right)
    if isinstance(value, cst.UnaryOperation):
        return _operands_of(value.expression)
    if isinstance(value, cst.Integer | cst.Float | cst.Call | cst.Attribute | cst.Subscript):
        return []
    return [value]


def _stores_figures(ctx, value: cst.BaseExpression, figures: set[str]) -> bool:
    """``stats.update({"gpu_mem": gpu_mem_mb})`` (or ``stats.update(gpu_mem=...)``): figures filed
    into a dict of statistics under text keys."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)):
        return False
    if value.func.attr.value != "update" or not value.args:
        return False
    for arg in value.args:
        if arg.keyword is not None:
            if not _is_figure(ctx, arg.value, figures):
                return False
        elif isinstance(arg.value, cst.Dict) and not arg.star:
            for element in arg.value.elements:
                if not isinstance(element, cst.DictElement) or not _is_figure(ctx, element.value, figures):
                    return False
                if not isinstance(element.key, cst.SimpleString | cst.FormattedString):
                    return False
        else:
            return False
    return True


def _only_reads_figures(ctx, value: cst.BaseExpression) -> bool:
    """Every call in ``value`` describes memory or hardware, names a device (``torch.device(x)``) or
    tests a type (``isinstance``): arithmetic and comparisons on such figures route nothing."""
    for found in walk(value):
        if not isinstance(found, cst.Call):
            continue
        qualname = ctx.qualname(found.func) if isinstance(found.func, cst.Name | cst.Attribute) else None
        builtin = isinstance(found.func, cst.Name) and found.func.value == "isinstance" and qualname is None
        if not (builtin or qualname == "torch.device" or _is_housekeeping_call(ctx, found)):
            return False
    return True


def _figures_read_outside(ctx, branch: cst.If) -> bool:
    """A name the block binds to a memory figure is read after the ``if``: the figure then leaves
    the housekeeping."""
    bound = {
        target.target.value
        for found in walk(branch.body)
        if isinstance(found, cst.Assign)
        for target in found.targets
        if isinstance(target.target, cst.Name)
    }
    if not bound:
        return False
    scope = ctx.enclosing_function() or ctx.module
    inside = {id(found) for found in walk(branch)}
    return any(
        isinstance(found, cst.Name) and found.value in bound and id(found) not in inside for found in walk(scope)
    )


def _collects_garbage(ctx, value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Call) and ctx.qualname(value.func) == "gc.collect"


def _rest_of_function(path: Sequence[cst.CSTNode]) -> list[list[cst.BaseStatement]] | None:
    """The statements that run after the ``if`` at the end of ``path`` (its ancestors, outermost
    first), block by block from the innermost, up to the end of its function; None outside a
    function or inside a loop, where a ``return`` would also skip the passes left."""
    blocks: list[list[cst.BaseStatement]] = []
    for index in range(len(path) - 1, 0, -1):
        node, parent = path[index], path[index - 1]
        if isinstance(parent, cst.FunctionDef):
            return blocks
        if isinstance(parent, cst.For | cst.While):
            return None
        if isinstance(parent, cst.IndentedBlock):
            lines = list(parent.body)
            position = next(i for i, line in enumerate(lines) if line is node)
            blocks.append(lines[position + 1 :])
    return None


def _rest_keeps_house(ctx, path: Sequence[cst.CSTNode]) -> bool:
    """What runs after the ``if`` at the end of ``path``, up to the end of its function, only keeps
    house (also under tests of its own): a ``return`` inside the ``if`` then skips nothing else."""
    rest = _rest_of_function(path)
    return rest is not None and all(_keeps_house_line(ctx, line) for block in rest for line in block)


def _keeps_house_line(ctx, line: cst.BaseStatement) -> bool:
    if isinstance(line, cst.If) and line.orelse is None:
        inner: list[cst.Return] = []  # ``if ... and torch.cuda.is_available(): empty_cache()``
        return _keeps_house_in(ctx, line.body, inner) and not inner
    return isinstance(line, cst.SimpleStatementLine) and all(
        isinstance(small, cst.Expr) and (_keeps_house(ctx, small.value) or _collects_garbage(ctx, small.value))
        for small in line.body
    )


def _keeps_house(ctx, value: cst.BaseExpression) -> bool:
    """``torch.cuda.empty_cache()``, or ``writer.add_scalar("peak", torch.cuda.max_memory_allocated())``."""
    if not isinstance(value, cst.Call):
        return False
    if _is_housekeeping_call(ctx, value):
        return True
    return any(
        isinstance(found, cst.Call) and _is_housekeeping_call(ctx, found)
        for arg in value.args
        for found in walk(arg.value)
    )


def _is_housekeeping_call(ctx, call: cst.Call) -> bool:
    qualname = ctx.qualname(call.func) if isinstance(call.func, cst.Name | cst.Attribute) else None
    return (
        is_torch_name(qualname or "", *_DEVICE_MODULES) and (qualname or "").rpartition(".")[2] in _INTROSPECTION
    )


def _rest_describes(ctx, path: Sequence[cst.CSTNode]) -> bool:
    """What runs after the ``if`` at the end of ``path``, up to the end of its function, only returns
    or stores descriptions (see `_rest_of_function` for where it does not count)."""
    rest = _rest_of_function(path)
    if rest is None:
        return False
    for block in rest:
        described: set[str] = set()  # ``name = torch.cuda.get_device_name(i)`` then ``return name``
        if not all(_describes_line(ctx, line, described) for line in block):
            return False
    return True


def _describes_line(ctx, line: cst.BaseStatement, described: set[str]) -> bool:
    """``line`` returns or stores a description, or returns a name an earlier line bound to one."""
    if not isinstance(line, cst.SimpleStatementLine):
        return _only_describes(ctx, cst.IndentedBlock(body=[line]))
    for small in line.body:
        if _adds_description(ctx, small):
            if isinstance(small, cst.Assign):
                described.update(t.target.value for t in small.targets if isinstance(t.target, cst.Name))
        elif not (
            isinstance(small, cst.Return) and isinstance(small.value, cst.Name) and small.value.value in described
        ):
            return False
    return True


def _only_describes(ctx, block: cst.BaseSuite) -> bool:
    """Every statement of ``block`` returns or stores a description (see `_is_description`), or is
    an ``if`` or ``for`` without ``else`` whose block does."""
    statements = block.body if isinstance(block, cst.IndentedBlock) else (block,)
    for statement in statements:
        if isinstance(statement, cst.If | cst.For) and statement.orelse is None:
            if not _only_describes(ctx, statement.body):
                return False
        elif isinstance(statement, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            if not all(_adds_description(ctx, small) for small in statement.body):
                return False
        else:
            return False
    return bool(statements)


def _adds_description(ctx, small: cst.BaseSmallStatement) -> bool:
    """``return d``, ``x = d``, or text added to a message: ``msg += d``, ``msg = msg + d``,
    ``lines.append(d)``, with ``d`` a description (see `_is_description`)."""
    if isinstance(small, cst.Return | cst.Assign):
        value = small.value
        if isinstance(small, cst.Assign) and isinstance(value, cst.BinaryOperation):
            target = small.targets[0].target if len(small.targets) == 1 else None
            if isinstance(value.operator, cst.Add) and target is not None and value.left.deep_equals(target):
                value = value.right  # ``msg = msg + f" on GPU {i}"``
        # a bare ``return`` skips the rest: a route, not a description
        return value is not None and _is_description(ctx, value)
    if isinstance(small, cst.AugAssign):
        return isinstance(small.operator, cst.AddAssign) and _is_text(small.value)
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call = small.value
        appends = isinstance(call.func, cst.Attribute) and call.func.attr.value == "append"
        return appends and len(call.args) == 1 and _is_text(call.args[0].value)
    return False


def _is_description(ctx, value: cst.BaseExpression | None) -> bool:
    """``None``, prose (``"No CUDA"``; a bare word such as ``"nccl"`` could pick a backend), or what
    a member of a device module that describes the hardware returns (``torch.cuda.get_device_name(0)``)."""
    if value is None or is_literal(value, "None") or _is_text(value):
        return True
    if isinstance(value, cst.Call):
        qualname = ctx.qualname(value.func) or ""
        return is_torch_name(qualname, *_DEVICE_MODULES) and qualname.rpartition(".")[2] in _INTROSPECTION
    return False


def _is_text(node: cst.BaseExpression) -> bool:
    """Prose for a description, such as a module's ``extra_repr``: an empty string, or a string or
    f-string whose fixed text holds more than a name (``" (GPU)"``, ``f" on GPU {i}"``). A bare word
    (``"nccl"``, ``"cuda"``, ``"cpu:0"``) could be handed to a call that picks a backend."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return _is_text(node.left) and _is_text(node.right)
    fixed = _fixed_text(node)
    return fixed is not None and (fixed == "" or _NAME_LIKE.fullmatch(fixed) is None)


def _fixed_text(node: cst.BaseExpression) -> str | None:
    """The literal text of a string, an f-string (without what it interpolates) or of adjacent ones
    (``f"{s} | " f"CUDA: {torch.version.cuda}"``); None for anything else."""
    if isinstance(node, cst.FormattedString):
        return "".join(p.value for p in node.parts if isinstance(p, cst.FormattedStringText))
    if isinstance(node, cst.SimpleString):
        return string_value(node)
    if isinstance(node, cst.ConcatenatedString):
        left, right = _fixed_text(node.left), _fixed_text(node.right)
        return None if left is None or right is None else left + right
    return None


def _shown(node: cst.BaseExpression) -> str:
    value = string_value(node)
    return repr(value) if value is not None else source_of(node)


def _is_device_type(node: cst.BaseExpression) -> bool:
    """``x.device.type`` (or any ``.type`` attribute read, as on a ``torch.device``)."""
    return isinstance(node, cst.Attribute) and node.attr.value == "type"


def _names_non_cpu(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Tuple | cst.List | cst.Set):
        return any(is_non_cpu_device_string(element.value) for element in node.elements)
    return is_non_cpu_device_string(node)


def _condition_of(ancestors: list[cst.CSTNode]) -> cst.CSTNode | None:
    """The outermost ``and``/``or`` or comparison the visited node is, or is part of, through the
    expressions conditions are made of (calls, attributes, ``not``): both sides of
    ``a.is_cuda != b.is_cuda`` are one test. A conditional expression whose test holds the node is
    the condition itself, so ``"cuda" if torch.cuda.is_available() else "cpu"`` is one choice. None
    outside one."""
    found = None
    child = None
    for node in reversed(ancestors):
        if isinstance(node, cst.IfExp) and child is node.test:
            return node  # the test of a conditional expression that names a device in an arm
        if not isinstance(node, _CONDITION_PARTS):
            break
        if isinstance(node, cst.BooleanOperation | cst.Comparison):
            found = node
        child = node
    return found


def _choice_around_arm(ancestors: list[cst.CSTNode]) -> cst.IfExp | None:
    """The nearest conditional expression the visited node is in an arm of, within one statement."""
    child = None
    for node in reversed(ancestors):
        if isinstance(node, cst.IfExp) and child is not None and child is not node.test:
            return node
        if isinstance(node, cst.BaseSmallStatement | cst.BaseCompoundStatement | cst.Lambda):
            return None
        child = node
    return None


def _drop_device_call(ctx, call: cst.Call) -> PendingFix | None:
    """``x.cuda(...)`` -> ``x``: the value is the same, but ``x`` is now returned itself, not a copy.
    ``x = x.cuda()`` would become ``x = x``, so the statement goes (``pass`` if it is alone), and
    ``x: T = x.cuda()`` keeps its annotation alone (``x: T``) where ``x`` is a local or module name;
    in a class body ``x: T`` would drop the class attribute, so there only the call goes."""
    if not isinstance(call.func, cst.Attribute):
        return None
    receiver = source_of(call.func.value)
    message = f"Remove `.{call.func.attr.value}()`"
    ancestors = ctx.ancestors
    assign, line, block = (ancestors[-2], ancestors[-3], ancestors[-4]) if len(ancestors) > 3 else (None,) * 3
    if (
        isinstance(assign, cst.AnnAssign)
        and not _in_class_body(ancestors)
        and assign.value is call
        and isinstance(assign.target, cst.Name)
        and assign.target.value == receiver
    ):
        annotated = f"{receiver}: {source_of(assign.annotation.annotation)}"
        return PendingFix(
            UNSAFE, f"{message}, keeping the annotation of `{receiver}`", (NodeEdit(assign, annotated),)
        )
    rebinds_itself = (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
        and assign.targets[0].target.value == receiver
        and isinstance(line, cst.SimpleStatementLine)
        and len(line.body) == 1
    )
    if not rebinds_itself:
        return PendingFix(UNSAFE, message, (NodeEdit(call, receiver),))
    alone = isinstance(block, cst.IndentedBlock) and len(block.body) == 1
    edit = NodeEdit(assign, "pass") if alone else NodeEdit(line, whole_lines=True)
    return PendingFix(UNSAFE, f"{message} and the statement that rebinds `{receiver}` to itself", (edit,))


def _in_class_body(ancestors: list[cst.CSTNode]) -> bool:
    """Whether the innermost function or class around the node is a class."""
    scope = next((node for node in reversed(ancestors) if isinstance(node, cst.FunctionDef | cst.ClassDef)), None)
    return isinstance(scope, cst.ClassDef)
