def clean(x):
    return x
