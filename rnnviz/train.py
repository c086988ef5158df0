"""`python -m rnnviz.train`: see `rnnviz.charlm.train`."""
from rnnviz.charlm.train import main

if __name__ == "__main__":
    raise SystemExit(main())
