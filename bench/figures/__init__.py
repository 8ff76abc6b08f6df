"""The speed figures, one module per figure or small family of figures; bench/bench.py lists them."""
