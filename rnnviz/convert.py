"""`python -m rnnviz.convert`: see `rnnviz.charlm.convert`."""
from rnnviz.charlm.convert import main

if __name__ == "__main__":
    raise SystemExit(main())
