import torch
def broken(:
