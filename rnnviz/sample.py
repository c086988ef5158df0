"""`python -m rnnviz.sample`: see `rnnviz.charlm.sample`."""
from rnnviz.charlm.sample import main

if __name__ == "__main__":
    raise SystemExit(main())
