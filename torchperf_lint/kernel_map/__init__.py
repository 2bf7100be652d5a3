"""The kernel map: which functions are caller-prevalidated and which are primitives, inferred from
the project index without configuration, and what each file's rules are told about them."""
