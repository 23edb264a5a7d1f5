"""Accumulator chains shared by the generators of the channel blocks
(depthwise8.py, depthwise16.py): a group of positions keeps chains
registers per position, v(q + count*h) taking the h-th of every chains
input channels, summed into the first at the end."""


def sum_chains(w, v, count, chains):
    """Writes, through w, the adds of each position's chains into its
    first (v names the registers, "Y" or "Z"), pairwise."""
    step = 1
    while step < chains:
        for h in range(0, chains, 2 * step):
            if h + step < chains:
                for q in range(count):
                    a, b = q + count * h, q + count * (h + step)
                    w(f"\tVADDPS {v}{b}, {v}{a}, {v}{a}")
        step *= 2
