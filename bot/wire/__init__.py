"""Wire formats: the callback data of every button and /start's parameters (deep links too),
parsed and checked: nothing in them is trusted."""
