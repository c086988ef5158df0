"""`python -m rnnviz.average`: see `rnnviz.charlm.average`."""
from rnnviz.charlm.average import main

if __name__ == "__main__":
    raise SystemExit(main())
