"""Games that are not bit-exact with ALE yet: game -> reason (with the first
diverging frame).  They stay in the parity tests as expected failures; the README's
parity table (tools/parity_table.py) reports them.  Empty means every supported game
is exact."""

XFAIL = {}
