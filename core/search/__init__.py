"""Game-tree search for `hard` on the boards beyond the solved 3×3 game (4×4 to 8×8): the search
(`engine`), its incremental board and per-(size, k) geometry, and its threat search (VCF)."""
