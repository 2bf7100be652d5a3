# -*- coding: latin-1 -*-
import torch
name = "café"
y = torch.zeros(2, requires_grad=True)
