"""Lint pinned third-party Torch libraries and score the findings against hand-labelled samples.

    python benchmarks/realcode.py [--tool PATH] [--cache-dir DIR] [--split train|test] [--sample N --seed S]

The packages form two splits. The train split (albucore, kornia, torchvision and each earlier test
split) is what rules are tuned against. The test split holds packages whose findings were labelled by
people who read only the rule pages and the code, before any rule was changed for them, and which
nobody reads while changing a rule: its figures are the ones that say how the rules do on code they
were not fitted to.

The wheels are fetched with ``pip download --no-deps`` into a cache folder (ignored by git), unpacked,
and linted by the installed console script with the default settings: each unpacked package gets a
``pyproject.toml`` holding an empty ``[tool.torchperf-lint]`` table, so no surrounding configuration
applies and per-file patterns match paths inside the package. Nothing linted is imported.

``benchmarks/realcode/labels.tsv`` (train) and ``labels-test.tsv`` (test) hold the labels (package,
path, line, rule, verdict, snippet, reason). A TP or FP label scores the current finding of that rule in
that file whose code, from the finding's column, starts with the snippet (nearest to the recorded line,
so labels survive small edits; a finding still on a label's own line goes to that label before any
other label claims it by distance). A MISS label records something the rule should report: it counts as
found when the rule reports a finding whose lines span the recorded line. The script prints, per
split, precision per rule on the labelled findings, recall on the recorded misses, how many findings
carry no label, and counts per package. It exits 1 when a finding labelled TP is no longer reported:
a true finding is never dropped silently; relabel the row (FP, with both readings in its reason) if
the finding was wrong after all. ``--sample N`` prints up to N unlabelled findings per rule and
package, drawn with a fixed seed, for labelling.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import shutil
import subprocess
import sys
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Package:
    version: str
    split: str
    #: Top-level folders of the wheel to lint (None: all); some wheels ship stray copies (``build/``).
    folders: tuple[str, ...] | None = None


PACKAGES = {
    "albucore": Package("0.3.1", "train"),
    "kornia": Package("0.9.0", "train"),
    "torchvision": Package("0.29.1", "train"),
    "diffusers": Package("0.42.1", "train"),
    "julius": Package("0.2.8", "train"),
    "pyiqa": Package("0.1.16", "train", ("pyiqa",)),
    "roma": Package("1.8.0", "train"),
    "spandrel": Package("0.4.2", "train"),
    "torchgeo": Package("0.8.1", "train"),
    "lpips": Package("0.1.4", "train"),
    "monai": Package("1.6.1", "train"),
    "piq": Package("0.8.0", "train"),
    "torchio": Package("1.2.1", "train"),
    "torchmetrics": Package("1.9.0", "train"),
    "deepinv": Package("0.5.0", "train"),
    "open_clip_torch": Package("3.3.0", "train"),
    "timm": Package("1.0.31", "train"),
    "torch_fidelity": Package("0.4.0", "train"),
    "torchkbnufft": Package("1.5.2", "train"),
    "torchaudio": Package("2.9.0", "train", ("torchaudio",)),
    "ptwt": Package("1.0.1", "train"),
    "torch_harmonics": Package("0.9.3", "train", ("torch_harmonics",)),
    "gpytorch": Package("1.15.2", "train", ("gpytorch",)),
    "segmentation_models_pytorch": Package("0.6.0", "train", ("segmentation_models_pytorch",)),
    "torch_geometric": Package("2.8.1", "train", ("torch_geometric",)),
    "nerfacc": Package("0.5.3", "train", ("nerfacc",)),
    "lightly": Package("1.6.0", "train", ("lightly",)),
    "pytorch_wavelets": Package("1.3.0", "train", ("pytorch_wavelets",)),
    "e3nn": Package("0.6.0", "train", ("e3nn",)),
    "pyro_ppl": Package("1.9.2", "train", ("pyro",)),
    "botorch": Package("0.18.1", "train", ("botorch",)),
    "escnn": Package("1.0.11", "train", ("escnn",)),
    "nnaudio": Package("0.3.4", "train", ("nnAudio",)),
    "torch_audiomentations": Package("0.12.0", "train", ("torch_audiomentations",)),
    "torchdiffeq": Package("0.2.5", "train", ("torchdiffeq",)),
    "torchsde": Package("0.2.6", "train", ("torchsde",)),
    "zuko": Package("1.6.0", "train", ("zuko",)),
    "pytorch_msssim": Package("1.0.0", "train", ("pytorch_msssim",)),
    "asteroid_filterbanks": Package("0.4.0", "train", ("asteroid_filterbanks",)),
    "torchcde": Package("0.2.5", "train", ("torchcde",)),
    "torch_interpol": Package("0.3.0", "train", ("interpol",)),
    "cornucopia": Package("0.5.1", "train", ("cornucopia",)),
    "hf_deepali": Package("0.6.5", "train", ("deepali",)),
    "kymatio": Package("0.3.0", "train", ("kymatio",)),
    "pytorch_ignite": Package("0.5.5", "train", ("ignite",)),
    "pytorch_metric_learning": Package("2.9.0", "train", ("pytorch_metric_learning",)),
    "geomloss": Package("0.3.1", "train", ("geomloss",)),
    "voxelmorph": Package("0.3.4", "train", ("voxelmorph",)),
    "neuraloperator": Package("2.0.0", "train", ("neuralop",)),
    "torchode": Package("1.0.1", "train", ("torchode",)),
    "torch_optimizer": Package("0.3.0", "train", ("torch_optimizer",)),
    "piqa": Package("1.3.2", "train", ("piqa",)),
    "geoopt": Package("0.5.1", "train", ("geoopt",)),
    "linear_operator": Package("0.6.1", "train", ("linear_operator",)),
    "captum": Package("0.9.0", "train", ("captum",)),
    "nnunetv2": Package("2.8.1", "train", ("nnunetv2",)),
    "dynamic_network_architectures": Package("0.4.4", "train", ("dynamic_network_architectures",)),
    "torchcam": Package("0.5.0", "train", ("torchcam",)),
    "opacus": Package("1.6.0", "train", ("opacus",)),
    "torchquad": Package("0.6.0", "train", ("torchquad",)),
    "segment_anything": Package("1.0", "train", ("segment_anything",)),
    "pytorch_tabnet": Package("4.1.0", "train", ("pytorch_tabnet",)),
    "torch_ema": Package("0.3", "train", ("torch_ema",)),
    "accelerate": Package("1.16.0", "train", ("accelerate",)),
    "braindecode": Package("1.8.1", "train", ("braindecode",)),
    "compressai": Package("1.2.8", "train", ("compressai",)),
    "torchxrayvision": Package("1.5.7", "train", ("torchxrayvision",)),
    "schnetpack": Package("2.1.1", "train", ("schnetpack",)),
    "torchdyn": Package("1.0.6", "train", ("torchdyn",)),
    "pina_mathlab": Package("0.3.2.post2610", "train", ("pina",)),
    "auraloss": Package("0.4.0", "train", ("auraloss",)),
    "torchcrepe": Package("0.0.24", "train", ("torchcrepe",)),
    "pytorch_fid": Package("0.3.0", "train", ("pytorch_fid",)),
    "pytorch_minimize": Package("0.1.0", "train", ("torchmin",)),
    "torch_pitch_shift": Package("1.2.5", "train", ("torch_pitch_shift",)),
    "unfoldNd": Package("0.2.3", "train", ("unfoldNd",)),
    "torch_dct": Package("0.1.6", "train", ("torch_dct",)),
    "xitorch": Package("0.5.1", "train", ("xitorch",)),
    "gsplat": Package("1.5.3", "train", ("gsplat",)),
    "k_diffusion": Package("0.1.1.post1", "train", ("k_diffusion",)),
    "denoising_diffusion_pytorch": Package("2.3.4", "train", ("denoising_diffusion_pytorch",)),
    "vector_quantize_pytorch": Package("1.32.0", "train", ("vector_quantize_pytorch",)),
    "torchani": Package("2.9.0", "train", ("torchani",)),
    "deepxde": Package("1.15.0", "train", ("deepxde",)),
    "kornia_moons": Package("0.3.0", "train", ("kornia_moons",)),
    "peft": Package("0.21.2", "train", ("peft",)),
    "torchopt": Package("0.7.3", "train", ("torchopt",)),
    "mri_nufft": Package("1.5.1", "train", ("mrinufft",)),
    "tntorch": Package("1.1.2", "train", ("tntorch",)),
    "pystiche": Package("1.0.1", "train", ("pystiche",)),
    "fast_pytorch_kmeans": Package("0.2.2", "train", ("fast_pytorch_kmeans",)),
    "torch_kmeans": Package("0.2.0", "train", ("torch_kmeans",)),
    "ultralytics": Package("8.4.190", "train", ("ultralytics",)),
    "speechbrain": Package("1.1.2", "train", ("speechbrain",)),
    "mmengine": Package("0.10.7", "train", ("mmengine",)),
    "tensordict": Package("0.15.3", "train", ("tensordict",)),
    "asteroid": Package("0.7.0", "train", ("asteroid",)),
    "descript_audio_codec": Package("1.0.0", "train", ("dac",)),
    "vocos": Package("0.1.0", "train", ("vocos",)),
    "ema_pytorch": Package("0.8.3", "train", ("ema_pytorch",)),
    "rotary_embedding_torch": Package("0.9.1", "train", ("rotary_embedding_torch",)),
    "torchinfo": Package("1.8.0", "train", ("torchinfo",)),
    "einx": Package("0.4.3", "train", ("einx",)),
    "torchjpeg": Package("0.9.33", "train", ("torchjpeg",)),
    "pytorch_lightning": Package("2.6.6", "train", ("pytorch_lightning", "lightning_fabric")),
    "torchrl": Package("0.14.1", "train", ("torchrl",)),
    "x_transformers": Package("2.31.10", "train", ("x_transformers",)),
    "pytorch_forecasting": Package("1.8.0", "train", ("pytorch_forecasting",)),
    "torchlens": Package("2.36.1", "train", ("torchlens",)),
    "sigpy": Package("0.1.27", "train", ("sigpy",)),
    "torchmetrics_ext": Package("0.4.2", "train", ("torchmetrics_ext",)),
    "lightning_utilities": Package("0.15.3", "train", ("lightning_utilities",)),
    "clean_fid": Package("0.1.35", "train", ("cleanfid",)),
    "demucs": Package("4.1.0", "train", ("demucs",)),
    "monai_generative": Package("0.2.3", "train", ("generative",)),
    "pypose": Package("0.9.5", "train", ("pypose",)),
    "pytorch_toolbelt": Package("0.8.0", "train", ("pytorch_toolbelt",)),
    "sentence_transformers": Package("6.3.0", "train", ("sentence_transformers",)),
    "skorch": Package("1.4.0", "train", ("skorch",)),
    "theseus_ai": Package("0.1.0", "train", ("theseus",)),
    "torchao": Package("0.18.0", "train", ("torchao",)),
    "torchattacks": Package("3.5.1", "train", ("torchattacks",)),
    "torchgan": Package("0.1.0", "train", ("torchgan",)),
    "torchtune": Package("0.6.1", "train", ("torchtune",)),
    "avalanche_lib": Package("0.6.0", "train", ("avalanche",)),
    "d3rlpy": Package("2.8.1", "train", ("d3rlpy",)),
    "fastai": Package("2.8.12", "train", ("fastai",)),
    "flair": Package("0.15.1", "train", ("flair",)),
    "neuralforecast": Package("3.3.0", "train", ("neuralforecast",)),
    "pytorch_tabular": Package("1.2.0", "train", ("pytorch_tabular",)),
    "sbi": Package("0.27.0", "train", ("sbi",)),
    "stable_baselines3": Package("2.9.2", "train", ("stable_baselines3",)),
    "tianshou": Package("2.0.1", "train", ("tianshou",)),
    "trl": Package("1.16.0", "train", ("trl",)),
    "pykeen": Package("1.11.1", "train", ("pykeen",)),
    "pytorch_pfn_extras": Package("0.9.0", "train", ("pytorch_pfn_extras",)),
    "pyannote_audio": Package("4.0.7", "train", ("pyannote",)),
    "torchdistill": Package("1.1.5", "train", ("torchdistill",)),
    "yolov5": Package("7.0.14", "train", ("yolov5",)),
    "torchtext": Package("0.18.0", "train", ("torchtext",)),
    "pytorch_widedeep": Package("1.7.0", "train", ("pytorch_widedeep",)),
    "torchrec": Package("1.9.2", "train", ("torchrec",)),
    "mmdet": Package("3.3.0", "train", ("mmdet",)),
    "gluonts": Package("0.17.0", "train", ("gluonts",)),
    "bitsandbytes": Package("0.50.2", "train", ("bitsandbytes",)),
    "mmpretrain": Package("1.2.0", "train", ("mmpretrain",)),
    "mmsegmentation": Package("1.2.2", "train", ("mmseg",)),
    "neuralprophet": Package("0.9.0", "train", ("neuralprophet",)),
    "pykan": Package("0.2.8", "train", ("kan",)),
    "pytorch_ood": Package("0.4.0", "train", ("pytorch_ood",)),
    "pytorch_optimizer": Package("4.1.0", "train", ("pytorch_optimizer",)),
    "torch_pruning": Package("1.6.1", "train", ("torch_pruning",)),
    "torch_uncertainty": Package("0.13.0", "train", ("torch_uncertainty",)),
    "torchcfm": Package("1.0.7", "train", ("torchcfm",)),
    "classy_vision": Package("0.7.0", "train", ("classy_vision",)),
    "clip_anytorch": Package("2.6.0", "train", ("clip",)),
    "lion_pytorch": Package("0.2.5", "train", ("lion_pytorch",)),
    "mmocr": Package("1.0.1", "train", ("mmocr",)),
    "mmpose": Package("1.3.2", "train", ("mmpose",)),
    "optimum": Package("2.3.0", "train", ("optimum",)),
    "torch_geometric_temporal": Package("0.56.2", "train", ("torch_geometric_temporal",)),
    "torchensemble": Package("0.2.0", "train", ("torchensemble",)),
    "torchkge": Package("0.17.7", "train", ("torchkge",)),
    "transformers": Package("5.25.0", "train", ("transformers",)),
    "mmagic": Package("1.2.0", "train", ("mmagic",)),
    "mmaction2": Package("1.2.0", "train", ("mmaction",)),
    "chemprop": Package("2.3.1", "train", ("chemprop",)),
    "poutyne": Package("1.19.0", "train", ("poutyne",)),
    "mace_torch": Package("0.3.16", "train", ("mace",)),
    "tsai": Package("1.0.1", "train", ("tsai",)),
    "mosaicml": Package("0.32.1", "train", ("composer",)),
    "lightning_bolts": Package("0.7.0", "train", ("pl_bolts",)),
    "imagen_pytorch": Package("2.1.0", "train", ("imagen_pytorch",)),
    "grad_cam": Package("1.0.0", "train", ("pytorch_grad_cam",)),
    "cellpose": Package("4.2.1.1", "train", ("cellpose",)),
    "nerfstudio": Package("1.1.5", "train", ("nerfstudio",)),
    "dalle2_pytorch": Package("1.15.6", "train", ("dalle2_pytorch",)),
    "pytorch_adapt": Package("0.0.83", "train", ("pytorch_adapt",)),
    "rising": Package("0.3.0", "train", ("rising",)),
    "pfrl": Package("0.1.0", "train", ("pfrl",)),
    "vit_pytorch": Package("1.26.14", "train", ("vit_pytorch",)),
    "audiolm_pytorch": Package("2.4.0", "train", ("audiolm_pytorch",)),
    "stylegan2_pytorch": Package("1.9.0", "train", ("stylegan2_pytorch",)),
    "openunmix": Package("1.3.0", "train", ("openunmix",)),
    "darts": Package("0.48.1", "train", ("darts",)),
    "skrl": Package("2.1.1", "train", ("skrl",)),
    "brevitas": Package("0.13.4", "train", ("brevitas",)),
    "fairchem_core": Package("2.24.0", "train", ("fairchem",)),
    "alphafold3_pytorch": Package("0.8.3", "train", ("alphafold3_pytorch",)),
    "sb3_contrib": Package("2.9.2", "train", ("sb3_contrib",)),
    "tabpfn": Package("9.2.0", "train", ("tabpfn",)),
    "super_gradients": Package("3.7.1", "train", ("super_gradients",)),
    "deepchem": Package("2.8.0", "train", ("deepchem",)),
    "nequip": Package("0.19.1", "train", ("nequip",)),
    "zennit": Package("0.5.1", "train", ("zennit",)),
    "sahi": Package("0.12.8", "train", ("sahi",)),
    "stanza": Package("1.15.0", "train", ("stanza",)),
    "catalyst": Package("22.4", "train", ("catalyst",)),
    "rl_games": Package("1.6.5", "train", ("rl_games",)),
    "gliner": Package("0.2.29", "train", ("gliner",)),
    "lightweight_gan": Package("1.2.1", "train", ("lightweight_gan",)),
    "schedulefree": Package("1.4.1", "train", ("schedulefree",)),
    "effdet": Package("0.4.1", "train", ("effdet",)),
    "gfpgan": Package("1.3.8", "train", ("gfpgan",)),
    "muse_maskgit_pytorch": Package("0.3.5", "train", ("muse_maskgit_pytorch",)),
    "adapters": Package("1.3.0", "train", ("adapters",)),
    "realesrgan": Package("0.3.0", "train", ("realesrgan",)),
    "torchmultimodal_nightly": Package("2024.4.1", "train", ("torchmultimodal",)),
    "chronos_forecasting": Package("2.3.2", "train", ("chronos",)),
    "pypots": Package("1.5", "train", ("pypots",)),
    "rfdetr": Package("1.11.2", "train", ("rfdetr",)),
    "robustbench": Package("1.1.1", "train", ("robustbench",)),
    "mmdet3d": Package("1.4.0", "train", ("mmdet3d",)),
    "salesforce_lavis": Package("1.0.2", "train", ("lavis",)),
    "torch_sim_atomistic": Package("0.3.0", "train", ("torch_sim",)),
    "granite_tsfm": Package("0.3.11", "train", ("tsfm_public",)),
    "optimum_quanto": Package("0.2.7", "train", ("optimum",)),
    "llmcompressor": Package("0.14.0.1", "train", ("llmcompressor",)),
    "autogluon_multimodal": Package("1.6.3", "train", ("autogluon",)),
    "inseq": Package("0.7.1", "train", ("inseq",)),
    "quantus": Package("0.6.0", "train", ("quantus",)),
    "litgpt": Package("0.5.13", "train", ("litgpt",)),
    "controlnet_aux": Package("0.0.10", "train", ("controlnet_aux",)),
    "python_doctr": Package("1.1.0", "train", ("doctr",)),
    "easyocr": Package("1.7.2", "train", ("easyocr",)),
    "surya_ocr": Package("0.22.1", "train", ("surya",)),
    "heavyball": Package("3.2.1", "train", ("heavyball",)),
    "orb_models": Package("0.5.5", "train", ("orb_models",)),
    "torchmd_net": Package("2.4.10", "train", ("torchmdnet",)),
    "imitation": Package("1.0.1", "train", ("imitation",)),
    "pot": Package("0.9.7.post1", "train", ("ot",)),
    "face_alignment": Package("1.5.0", "train", ("face_alignment",)),
    "compressed_tensors": Package("0.20.1", "train", ("compressed_tensors",)),
    "einops": Package("0.8.2", "train", ("einops",)),
    "mmrotate": Package("0.3.4", "train", ("mmrotate",)),
    "torch_spatiotemporal": Package("0.9.5", "train", ("tsl",)),
    "mmflow": Package("0.5.2", "train", ("mmflow",)),
    "adversarial_robustness_toolbox": Package("1.20.1", "train", ("art",)),
    "nemo_toolkit": Package("3.0.0", "train", ("nemo",)),
    "dgl": Package("2.1.0", "train", ("dgl",)),
    "scvi_tools": Package("1.4.2", "train", ("scvi",)),
    "laplace_torch": Package("0.5.1", "train", ("laplace",)),
    "laion_clap": Package("1.1.7", "train", ("laion_clap",)),
    "mmyolo": Package("0.6.0", "train", ("mmyolo",)),
    "deepfilternet": Package("0.5.6", "train", ("df",)),
    "batchgeneratorsv2": Package("0.3.6", "train", ("batchgeneratorsv2",)),
    "diffsptk": Package("4.0.1", "train", ("diffsptk",)),
    "pytorch_kinematics": Package("0.10.0", "train", ("pytorch_kinematics",)),
    "descript_audiotools": Package("0.7.2", "train", ("audiotools",)),
    "backpack_for_pytorch": Package("1.7.1", "train", ("backpack",)),
    "higher": Package("0.2.1", "train", ("higher",)),
    "nncf": Package("3.4.0", "train", ("nncf",)),
    "smplx": Package("0.1.28", "train", ("smplx",)),
    "transformer_lens": Package("4.3.0", "train", ("transformer_lens",)),
    "sae_lens": Package("6.54.12", "train", ("sae_lens",)),
    "chgnet": Package("0.4.2", "train", ("chgnet",)),
    "mattersim": Package("1.2.3", "train", ("mattersim",)),
    "matgl": Package("4.1.2", "train", ("matgl",)),
    "sevenn": Package("0.13.0", "train", ("sevenn",)),
    "boltz": Package("2.2.1", "train", ("boltz",)),
    "chai_lab": Package("0.6.1", "train", ("chai_lab",)),
    "agilerl": Package("2.58.0", "train", ("agilerl",)),
    "f5_tts": Package("1.1.22", "train", ("f5_tts",)),
    "basicsr": Package("1.3.3.3", "train", ("basicsr",)),
    "mmselfsup": Package("1.0.0", "train", ("mmselfsup",)),
    "whisperx": Package("3.8.6", "train", ("whisperx",)),
    "fair_esm": Package("2.0.0", "train", ("esm",)),
    "pyvene": Package("0.1.8", "train", ("pyvene",)),
    "nnsight": Package("0.8.1", "train", ("nnsight",)),
    "espnet": Package("202511", "train", ("espnet", "espnet2")),
    "funasr": Package("1.4.16", "train", ("funasr",)),
    "deeprobust": Package("0.2.11", "train", ("deeprobust",)),
    "alignn": Package("2026.8.11", "train", ("alignn",)),
    "coqui_tts": Package("0.28.0", "train", ("TTS",)),
    "elegantrl": Package("0.3.3", "train", ("elegantrl",)),
    "mmrazor": Package("1.0.0", "train", ("mmrazor",)),
    "recbole": Package("1.2.1", "train", ("recbole",)),
    "ax_platform": Package("1.3.1", "train", ("ax",)),
    "stable_audio_tools": Package("0.0.19", "train", ("stable_audio_tools",)),
    "dgllife": Package("0.3.2", "train", ("dgllife",)),
    "hummingbird_ml": Package("0.4.12", "train", ("hummingbird",)),
    "lm_eval": Package("0.4.13", "train", ("lm_eval",)),
    "styletts2": Package("0.1.6", "train", ("styletts2",)),
    "torch_lucent": Package("0.1.8", "train", ("lucent",)),
    "timesfm": Package("3.0.2", "train", ("timesfm", "timesfm3")),
    "allennlp": Package("2.10.1", "train", ("allennlp",)),
    "opennmt_py": Package("3.5.1", "train", ("onmt",)),
    "simpletransformers": Package("0.70.8", "train", ("simpletransformers",)),
    "textattack": Package("0.3.11", "train", ("textattack",)),
    "sample_factory": Package("2.1.1", "train", ("sample_factory",)),
    "mushroom_rl": Package("1.4.0", "train", ("mushroom_rl",)),
    "mmdeploy": Package("1.3.1", "train", ("mmdeploy",)),
    "mmtrack": Package("0.14.0", "train", ("mmtrack",)),
    "mmfewshot": Package("0.1.0", "train", ("mmfewshot",)),
    "mmhuman3d": Package("0.11.0", "train", ("mmhuman3d",)),
    "fairseq2": Package("0.8.1", "train", ("fairseq2",)),
    "unsloth": Package("2026.10.9", "train", ("unsloth",)),
    "pyod": Package("3.6.7", "train", ("pyod",)),
    "msclap": Package("1.3.4", "train", ("msclap",)),
    "pytorch_nlp": Package("0.5.0", "train", ("torchnlp",)),
    "pytorch_crf": Package("0.7.2", "train", ("torchcrf",)),
    "boxmot": Package("25.0.0", "train", ("boxmot",)),
    "parlai": Package("1.7.2", "train", ("parlai",)),
    "nni": Package("3.0", "train", ("nni",)),
    "neural_compressor": Package("3.10", "train", ("neural_compressor",)),
    "rl4co": Package("0.7.0", "train", ("rl4co",)),
    "terratorch": Package("1.2.13", "train", ("terratorch",)),
    "diffsynth": Package("2.1.12", "train", ("diffsynth",)),
    "nvidia_physicsnemo": Package("2.2.2", "train", ("physicsnemo",)),
    "llm_foundry": Package("0.22.0", "train", ("llmfoundry",)),
    "liger_kernel": Package("0.8.5", "train", ("liger_kernel",)),
    "tuned_lens": Package("0.2.0", "train", ("tuned_lens",)),
    "bayesian_torch": Package("0.5.0", "train", ("bayesian_torch",)),
    "unimol_tools": Package("0.1.6", "train", ("unimol_tools", "unimol_hf")),
    "ai2_olmo": Package("0.6.0", "train", ("olmo", "hf_olmo")),
    "rllte_core": Package("1.0.1", "train", ("rllte",)),
    "span_marker": Package("1.8.1", "train", ("span_marker",)),
    "ms_swift": Package("4.6.0", "test", ("swift",)),
    "verl": Package("0.9.1", "test", ("verl",)),
    "protenix": Package("2.0.0", "test", ("protenix",)),
    "axolotl": Package("0.19.0", "test", ("axolotl",)),
    "torchtitan": Package("0.3.0", "test", ("torchtitan",)),
    "xfuser": Package("0.7.0", "test", ("xfuser",)),
    "crypten": Package("0.4.1", "test", ("crypten",)),
    "nanotron": Package("0.4", "test", ("nanotron",)),
    "torchquantum": Package("0.1.8", "test", ("torchquantum",)),
    "xtuner": Package("0.2.0", "test", ("xtuner",)),
    "llamafactory": Package("0.9.5", "test", ("llamafactory",)),
    "torchphysics": Package("1.1.2", "test", ("torchphysics",)),
    "torcheval": Package("0.0.7", "test", ("torcheval",)),
    "lightning_flash": Package("0.8.2", "test", ("flash",)),
    "shap": Package("0.51.0", "test", ("shap",)),
    "fastmri": Package("0.3.0", "test", ("fastmri",)),
}
SPLITS = ("train", "test")
LABELS = {"train": HERE / "realcode" / "labels.tsv", "test": HERE / "realcode" / "labels-test.tsv"}
CACHE = HERE / "realcode" / "downloads"
COLUMNS = ("package", "path", "line", "rule", "verdict", "snippet", "reason")
VERDICTS = ("TP", "FP", "MISS")
#: The contract rules that must stay silent on albucore, a package written to follow the contract.
CONTRACT_PREFIX = "TPL0"
#: How far (in lines) a labelled finding may have moved and still be the one its label speaks of.
MAX_DRIFT = 30
#: How much of the code at a finding ``--sample`` prints as its snippet.
SNIPPET_LENGTH = 60


@dataclass(frozen=True)
class Finding:
    package: str
    path: str
    line: int
    column: int
    rule: str
    message: str
    #: The source line from the finding's column on: a label's snippet is a prefix of it.
    source: str
    end_line: int


@dataclass(frozen=True)
class Label:
    package: str
    path: str
    line: int
    rule: str
    verdict: str
    snippet: str
    reason: str


def fetch(package: str, version: str, cache: Path) -> Path:
    """The unpacked wheel of ``package==version``, downloaded and extracted once."""
    root = cache / "src" / f"{package}-{version}"
    if (root / "pyproject.toml").is_file():
        return root
    wheels = cache / "wheels"
    wheel = _wheel(wheels, package, version)
    if wheel is None:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-q"]
        subprocess.run([*command, "-d", str(wheels), f"{package}=={version}"], check=True)
        wheel = _wheel(wheels, package, version)
        if wheel is None:
            raise SystemExit(f"realcode: pip downloaded no wheel of {package}=={version} into {wheels}")
    if root.exists():
        shutil.rmtree(root)
    with zipfile.ZipFile(wheel) as archive:
        members = [name for name in archive.namelist() if name.endswith(".py")]
        archive.extractall(root, members)
    (root / "pyproject.toml").write_text("[tool.torchperf-lint]\n", encoding="utf-8")
    return root


def _wheel(wheels: Path, package: str, version: str) -> Path | None:
    """The downloaded wheel of ``package==version``; a wheel's name keeps the project's own case
    (``OpenNMT_py-3.5.1-...``), so names are compared case-insensitively."""
    if not wheels.is_dir():
        return None
    prefix = f"{package}-{version}-".lower()
    return next((w for w in sorted(wheels.glob("*.whl")) if w.name.lower().startswith(prefix)), None)


def lint(tool: str, package: str, root: Path, folders: tuple[str, ...] | None = None) -> list[Finding]:
    """Every finding the console script reports on the unpacked package, with default settings."""
    # Files are named one by one: the cache folder is git-ignored, and a folder given to the linter is
    # walked with the repository's .gitignore applied, while a file named explicitly is always linted.
    files = sorted(path.relative_to(root).as_posix() for path in root.rglob("*.py"))
    if folders is not None:
        files = [name for name in files if name.partition("/")[0] in folders]
    command = [tool, "check", "--no-cache", "--exit-zero", "--output-format", "json", *files]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"realcode: `{tool} check` in {root} exited {done.returncode}:\n{done.stderr}")
    lines_of: dict[str, list[str]] = {}
    found = []
    for item in json.loads(done.stdout):
        path = Path(item["filename"]).relative_to(root).as_posix()
        if path not in lines_of:
            lines_of[path] = (root / path).read_text(encoding="utf-8", errors="replace").splitlines()
        row, column = item["location"]["row"], item["location"]["column"]
        line = lines_of[path][row - 1] if 0 < row <= len(lines_of[path]) else ""
        at = line[column - 1 :].rstrip()
        end = item["end_location"]["row"]
        found.append(Finding(package, path, row, column, item["code"], item["message"], at, end))
    return found


def read_labels(path: Path) -> list[Label]:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise SystemExit(f"realcode: {path} must have the columns {', '.join(COLUMNS)}")
        labels = []
        for number, row in enumerate(reader, 2):
            if row["verdict"] not in VERDICTS:
                raise SystemExit(f"realcode: {path}:{number}: verdict must be one of {', '.join(VERDICTS)}")
            labels.append(Label(**{**row, "line": int(row["line"])}))
    return labels


Index = dict[tuple[str, str, str], list[Finding]]


def found_miss(label: Label, findings: Index) -> bool:
    """Whether the rule now reports a finding whose lines span the line a MISS label records."""
    return any(
        f.line <= label.line <= f.end_line for f in findings.get((label.package, label.path, label.rule), [])
    )


def match(label: Label, findings: Index, taken: set[Finding], drift: int = MAX_DRIFT) -> Finding | None:
    """The finding a label speaks of: same package, file and rule, the code at the finding starting
    with the snippet, not claimed by another label, nearest to the recorded line and at most
    ``drift`` lines from it. (Nested calls such
    as ``a(b).c()`` start at the same column, so two labels may share a snippet.)"""
    candidates = [
        f
        for f in findings.get((label.package, label.path, label.rule), [])
        if f.source.startswith(label.snippet) and f not in taken and abs(f.line - label.line) <= drift
    ]
    return min(candidates, key=lambda f: abs(f.line - label.line), default=None)


def score(findings: list[Finding], labels: list[Label]) -> tuple[dict[str, Counter], set[Finding], list[Label]]:
    """Per rule: TP and FP among labelled current findings, FP labels that no longer fire ("gone"),
    TP labels that no longer fire ("lost"), misses recorded and found. Also the labelled findings,
    and the TP labels lost."""
    by_key: Index = defaultdict(list)
    for finding in findings:
        by_key[(finding.package, finding.path, finding.rule)].append(finding)
    tally: dict[str, Counter] = defaultdict(Counter)
    labelled: set[Finding] = set()
    lost: list[Label] = []
    # A label claims the finding still on its own line first, so a label whose finding is gone cannot
    # take, by drift, the finding another label sits on; longer snippets claim first, so that of two
    # findings on a line (``a.clone(), a.clone()``) the one whose code only the longer snippet starts
    # goes to that label.
    in_place: dict[int, Finding] = {}
    for number, label in sorted(enumerate(labels), key=lambda item: -len(item[1].snippet)):
        hit = match(label, by_key, labelled, drift=0) if label.verdict != "MISS" else None
        if hit is not None:
            in_place[number] = hit
            labelled.add(hit)
    for number, label in enumerate(labels):
        counts = tally[label.rule]
        if label.verdict == "MISS":
            counts["misses"] += 1
            counts["found"] += found_miss(label, by_key)
            continue
        hit = in_place.get(number) or match(label, by_key, labelled)
        if hit is None:
            counts["gone" if label.verdict == "FP" else "lost"] += 1
            if label.verdict == "TP":
                lost.append(label)
        else:
            labelled.add(hit)
            counts[label.verdict] += 1
    return tally, labelled, lost


def print_report(findings: list[Finding], labels: list[Label], packages: list[str]) -> list[Label]:
    """The split's table; returns the TP labels whose finding is gone."""
    tally, labelled, lost = score(findings, labels)
    total = Counter(f.rule for f in findings)
    unlabelled = Counter(f.rule for f in findings if f not in labelled)
    rules = sorted(set(total) | set(tally))
    columns = "rule findings labelled TP FP precision FP-labels-gone TP-labels-lost misses-found recall".split()
    print("| " + " | ".join(c.replace("-", " ") for c in columns) + " |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    sums: Counter = Counter()
    for rule in rules:
        counts = tally[rule]
        print(f"| {rule} | {total[rule]} | " + _row(counts) + " |")
        sums.update(counts)
    print(f"| all | {sum(total.values())} | " + _row(sums) + " |")
    print(f"\nfindings with no label: {sum(unlabelled.values())} of {sum(total.values())}", end="")
    print(" (" + ", ".join(f"{rule} {count}" for rule, count in sorted(unlabelled.items())) + ")")
    print_packages(findings, packages)
    return lost


def _row(counts: Counter) -> str:
    """Labelled, TP, FP, precision, gone, lost, misses found, and recall: the TP findings over the TP
    findings plus the misses still missed."""
    judged = counts["TP"] + counts["FP"]
    precision = f"{counts['TP'] / judged:.2f}" if judged else "-"
    misses = f"{counts['found']}/{counts['misses']}" if counts["misses"] else "-"
    missed = counts["misses"] - counts["found"]
    recall = f"{counts['TP'] / (counts['TP'] + missed):.2f}" if counts["TP"] + missed else "-"
    return " | ".join(
        map(str, (judged, counts["TP"], counts["FP"], precision, counts["gone"], counts["lost"], misses, recall))
    )


def print_packages(findings: list[Finding], packages: list[str]) -> None:
    per_package: dict[str, Counter] = defaultdict(Counter)
    for finding in findings:
        per_package[finding.package][finding.rule] += 1
    rules = sorted({f.rule for f in findings})
    print("\n| package | " + " | ".join(rules) + " |")
    print("| --- | " + " | ".join("---" for _ in rules) + " |")
    for package in packages:
        print(f"| {package} | " + " | ".join(str(per_package[package][rule]) for rule in rules) + " |")
    if "albucore" in packages:
        contract = sum(n for rule, n in per_package["albucore"].items() if rule.startswith(CONTRACT_PREFIX))
        print(f"\nalbucore {PACKAGES['albucore'].version}: {contract} TPL001-TPL008 findings")


def print_sample(findings: list[Finding], labels: list[Label], size: int, seed: int) -> None:
    """Up to ``size`` unlabelled findings per rule and package, spread over files, for labelling."""
    _, labelled, _ = score(findings, labels)
    picker = random.Random(seed)
    groups: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    for finding in findings:
        if finding not in labelled:
            groups[(finding.package, finding.rule)].append(finding)
    print(f"\nsample (seed {seed}, up to {size} per rule and package):")
    for (package, rule), group in sorted(groups.items()):
        by_file: dict[str, list[Finding]] = defaultdict(list)
        for finding in group:
            by_file[finding.path].append(finding)
        files = sorted(by_file)
        picker.shuffle(files)
        chosen: list[Finding] = []
        while len(chosen) < size and any(by_file[f] for f in files):
            for path in files:  # one per file per round, so no single file dominates the sample
                if by_file[path] and len(chosen) < size:
                    chosen.append(by_file[path].pop(picker.randrange(len(by_file[path]))))
        for finding in chosen:
            snippet = finding.source[:SNIPPET_LENGTH].replace("\t", " ")
            print("\t".join((package, finding.path, str(finding.line), rule, snippet, finding.message)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_tool = shutil.which("torchperf-lint", path=str(Path(sys.executable).parent)) or "torchperf-lint"
    parser.add_argument("--tool", default=default_tool, help="the torchperf-lint executable to measure")
    parser.add_argument("--cache-dir", type=Path, default=CACHE, help="where wheels are downloaded and unpacked")
    parser.add_argument("--split", choices=SPLITS, action="append", help="only this split (repeatable)")
    parser.add_argument("--sample", type=int, default=0, help="print up to N unlabelled findings per rule")
    parser.add_argument("--seed", type=int, default=13, help="seed for --sample")
    args = parser.parse_args(argv)
    lost: list[Label] = []
    for split in args.split or SPLITS:
        packages = [name for name, package in PACKAGES.items() if package.split == split]
        print(f"## {split} split\n")
        findings: list[Finding] = []
        for name in packages:
            package = PACKAGES[name]
            root = fetch(name, package.version, args.cache_dir)
            found = lint(args.tool, name, root, package.folders)
            print(f"{name} {package.version}: {len(found)} findings")
            findings.extend(found)
        labels = read_labels(LABELS[split])
        verdicts = Counter(label.verdict for label in labels)
        print(f"labels: {len(labels)} rows, " + ", ".join(f"{v} {verdicts[v]}" for v in VERDICTS) + "\n")
        lost += print_report(findings, labels, packages)
        if args.sample:
            print_sample(findings, labels, args.sample, args.seed)
        print()
    for label in lost:
        where = f"{label.package} {label.path}:{label.line} {label.rule}"
        print(f"realcode: lost a true finding: {where} {label.snippet!r}")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
