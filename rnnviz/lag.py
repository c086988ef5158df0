"""`python -m rnnviz.lag`: see `rnnviz.experiments.lag`."""
from rnnviz.experiments.lag import main

if __name__ == "__main__":
    raise SystemExit(main())
