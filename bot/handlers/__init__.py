"""Update handlers: parse, call one use-case, render, send."""
