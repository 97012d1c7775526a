"""Side-by-side timings of QuatBake against its peers. See benchmarks/__main__.py."""
