"""`python -m rnnviz.evaluate`: see `rnnviz.charlm.evaluate`."""
from rnnviz.charlm.evaluate import main

if __name__ == "__main__":
    raise SystemExit(main())
