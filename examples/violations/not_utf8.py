import torch
x = "ÿþ"
